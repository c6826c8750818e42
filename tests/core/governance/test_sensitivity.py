"""Tests for the secret/PII scanner (R8).

The corpus test guards the overall trade-off (precision and recall at sample level, as the
policy uses the scanner); the unit tests pin each detector's validation logic and the
guarantee that findings and redactions never carry the sensitive value itself.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import time
from pathlib import Path

import pytest

from core.governance.sensitivity import (
    Finding,
    FindingType,
    cn_id_checksum,
    cn_resident_id_valid,
    finding_types,
    iban_valid,
    luhn_valid,
    redact,
    scan,
)

CORPUS = Path(__file__).with_name("sensitivity_corpus.jsonl")
SECRET_TYPES = {"api_key", "token", "password", "private_key", "connection_string"}
PII_TYPES = {
    "email_address",
    "phone_number",
    "card_number",
    "national_id",
    "postal_address",
    "bank_account",
}


# --------------------------------------------------------------------------- helpers


def _load_corpus() -> list[dict[str, object]]:
    with CORPUS.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _sample_level_counts(samples: list[dict[str, object]]) -> tuple[int, int, int, int]:
    """Return (tp, fn, fp, tn) with the benchmark's sample-level definitions."""
    tp = fn = fp = tn = 0
    for sample in samples:
        expected = set(sample["expected"])  # type: ignore[call-overload]
        found = {f.type.value for f in scan(str(sample["text"]))}
        if expected:
            tp, fn = (tp + 1, fn) if expected & found else (tp, fn + 1)
        else:
            fp, tn = (fp + 1, tn) if found else (fp, tn + 1)
    return tp, fn, fp, tn


def _luhn_complete(partial: str) -> str:
    """Append the Luhn check digit (independent of the implementation under test)."""
    digits = [int(c) for c in partial]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return partial + str((10 - total % 10) % 10)


def _cn_id(first17: str) -> str:
    """Append the GB 11643 check character (independent implementation)."""
    weights = [2 ** (17 - i) % 11 for i in range(17)]
    remainder = sum(int(d) * w for d, w in zip(first17, weights, strict=True)) % 11
    return first17 + "10X98765432"[remainder]


def _types(text: str) -> set[str]:
    return {f.type.value for f in scan(text)}


def _spans(text: str) -> list[str]:
    return [text[f.start : f.end] for f in scan(text)]


# --------------------------------------------------------------------------- corpus


def test_corpus_is_large_balanced_and_well_formed() -> None:
    samples = _load_corpus()
    positives = [s for s in samples if s["expected"]]
    negatives = [s for s in samples if not s["expected"]]
    assert len(positives) >= 80
    assert len(negatives) >= 80
    zh_share = sum(1 for s in samples if s["lang"] == "zh") / len(samples)
    assert 0.35 <= zh_share <= 0.5
    valid = {t.value for t in FindingType}
    for sample in samples:
        assert set(sample) == {"text", "lang", "expected", "note"}
        assert sample["lang"] in ("en", "zh")
        assert set(sample["expected"]) <= valid  # type: ignore[call-overload]


def test_corpus_precision_and_recall_at_least_95_percent() -> None:
    tp, fn, fp, _tn = _sample_level_counts(_load_corpus())
    precision = tp / (tp + fp)
    recall = tp / (tp + fn)
    assert precision >= 0.95, (tp, fp)
    assert recall >= 0.95, (tp, fn)


def test_corpus_negatives_survive_redaction_unchanged() -> None:
    for sample in _load_corpus():
        if not sample["expected"]:
            text = str(sample["text"])
            assert redact(text) == text, sample["note"]


# --------------------------------------------------------------------------- API shape


def test_finding_type_categories_follow_the_scenario_vocabulary() -> None:
    assert {t.value for t in FindingType if t.category == "secret"} == SECRET_TYPES
    assert {t.value for t in FindingType if t.category == "pii"} == PII_TYPES
    assert FindingType("api_key") is FindingType.API_KEY


def test_finding_holds_no_matched_value() -> None:
    fields = {f.name for f in dataclasses.fields(Finding)}
    assert fields == {"type", "start", "end", "detector"}
    secret = "Zq7vR2mX9kLp"
    for finding in scan(f"数据库密码是 {secret}，别告诉别人"):
        assert all(secret not in str(getattr(finding, name)) for name in fields)
        assert secret not in repr(finding)


def test_finding_is_frozen() -> None:
    finding = scan("mail me at jordan.miles@example.com")[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        finding.start = 0  # type: ignore[misc]


def test_scan_of_empty_text_is_empty() -> None:
    assert scan("") == []


def test_findings_are_sorted_and_do_not_overlap() -> None:
    text = (
        "DATABASE_URL=postgresql://billing_admin:Zq7vR2mX9kLp@db.internal.example:5432/billing\n"
        "contact ops@example.com or +1 (415) 555-0132, card 4111 1111 1111 1111"
    )
    findings = scan(text)
    assert len(findings) == 4
    for before, after in itertools.pairwise(findings):
        assert before.end <= after.start


def test_overlapping_hits_merge_into_the_most_specific_finding() -> None:
    # The URL also contains "pw@host" (an e-mail shape) and a URL password.
    text = "postgresql://billing_admin:Zq7vR2mX9kLp@db.internal.example:5432/billing"
    (finding,) = scan(text)
    assert finding.type is FindingType.CONNECTION_STRING
    assert (finding.start, finding.end) == (0, len(text))


def test_finding_types_are_sorted_and_unique() -> None:
    text = "mail a@example.com and b@example.com, key AKIAIOSFODNN7EXAMPLE"
    assert finding_types(scan(text)) == ["api_key", "email_address"]
    assert finding_types([]) == []


# --------------------------------------------------------------------------- redaction

REDACTION_CASES = [
    (
        "Remember my key: sk-proj-Qm8vX2rT7LpN4wZ9cB6yH1kD3fJ5sA0e",
        "sk-proj-Qm8vX2rT7LpN4wZ9",
        "api_key",
    ),
    ("DB_PASSWORD=Tr0ub4dor-and-3\nLOG_LEVEL=debug", "Tr0ub4dor-and-3", "password"),
    (
        "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
        "eyJzdWIiOiJiaWxsaW5nLWJvdCIsImV4cCI6MTc2NzIyNTYwMH0.Xk3vQ9pLr7TzW2mN8bYc4hJ6sD1fGa0eKuV5qR3tP7w",
        "Xk3vQ9pLr7TzW2mN8bYc",
        "token",
    ),
    ("我的身份证号是 110105199003071239，手机号 13812345678", "110105199003071239", "national_id"),
    ("我的身份证号是 110105199003071239，手机号 13812345678", "13812345678", "phone_number"),
    (
        "postgresql://billing_admin:Zq7vR2mX9kLp@db.internal.example:5432/billing",
        "Zq7vR2mX9kLp",
        "connection_string",
    ),
    ("card 4111 1111 1111 1111 exp 12/27", "4111 1111 1111 1111", "card_number"),
    ("我家住在北京市朝阳区建国路88号", "建国路88号", "postal_address"),
]


@pytest.mark.parametrize(("text", "secret", "kind"), REDACTION_CASES)
def test_redact_removes_raw_value_and_names_the_type(text: str, secret: str, kind: str) -> None:
    redacted = redact(text)
    assert secret not in redacted
    assert f"[REDACTED:{kind}]" in redacted


def test_redact_keeps_the_non_sensitive_context() -> None:
    text = "DB_HOST=localhost\nDB_PASSWORD=Tr0ub4dor-and-3\nLOG_LEVEL=debug"
    assert redact(text) == "DB_HOST=localhost\nDB_PASSWORD=[REDACTED:password]\nLOG_LEVEL=debug"


def test_redact_uses_given_findings_and_tolerates_overlaps() -> None:
    text = "token abcdef here"
    findings = [
        Finding(FindingType.TOKEN, 6, 12, "test"),
        Finding(FindingType.TOKEN, 8, 10, "test"),
        Finding(FindingType.TOKEN, 50, 60, "out-of-range"),
    ]
    assert redact(text, findings) == "token [REDACTED:token] here"
    assert redact(text, []) == text


def test_redact_never_leaks_any_corpus_span() -> None:
    for sample in _load_corpus():
        text = str(sample["text"])
        redacted = redact(text)
        for span in _spans(text):
            if len(span) >= 6:
                assert span not in redacted, sample["note"]


# --------------------------------------------------------------------------- cards (Luhn)


def test_luhn_valid_known_numbers() -> None:
    assert luhn_valid("4111111111111111")
    assert luhn_valid("5555555555554444")
    assert luhn_valid("378282246310005")
    assert not luhn_valid("4111111111111112")
    assert not luhn_valid("41111111x1111111")


@pytest.mark.parametrize(
    "number",
    [
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "5555555555554444",
        "3782 822463 10005",
        _luhn_complete("622202123456789012"),
        _luhn_complete("353011133330000"),
    ],
)
def test_valid_cards_are_found_with_exact_span(number: str) -> None:
    text = f"请用这张卡 {number} 付款"
    findings = scan(text)
    assert [(f.type, text[f.start : f.end]) for f in findings] == [
        (FindingType.CARD_NUMBER, number)
    ]
    assert findings[0].detector == "luhn_card"


def test_card_rejected_when_luhn_fails_or_issuer_unknown() -> None:
    assert scan("order 4111 1111 1111 1112 shipped") == []
    unknown_issuer = _luhn_complete("123456789012345")  # Luhn-valid, no network starts with 1
    assert luhn_valid(unknown_issuer)
    assert scan(f"number {unknown_issuer}") == []


def test_order_number_label_suppresses_luhn_coincidence() -> None:
    lucky = _luhn_complete("402400719876543")  # passes Luhn by construction
    assert _types(f"card {lucky}") == {"card_number"}
    assert _types(f"订单号 {lucky} 已发货") == set()


# --------------------------------------------------------------------------- Chinese ids


def test_cn_id_checksum_matches_independent_implementation() -> None:
    for first17 in ("11010519900307123", "44030519920228671", "33010619851111003"):
        assert cn_id_checksum(first17) == _cn_id(first17)[-1]
    assert cn_resident_id_valid("110105199003071239")


def test_cn_id_found_and_bad_checksum_rejected() -> None:
    good = _cn_id("44030519920228671")
    bad = good[:-1] + ("0" if good[-1] != "0" else "1")
    assert _types(f"身份证号{good}") == {"national_id"}
    assert _spans(f"身份证号{good}，部门平台组") == [good]
    assert scan(f"数字 {bad} 校验失败") == []


def test_cn_id_with_x_check_character() -> None:
    first17 = next(
        f"110108198906{d:02d}{k:03d}"
        for d in range(1, 29)
        for k in range(100, 999)
        if _cn_id(f"110108198906{d:02d}{k:03d}").endswith("X")
    )
    for value in (_cn_id(first17), _cn_id(first17).lower()):
        assert _types(f"身份证 {value}") == {"national_id"}


def test_cn_id_rejects_impossible_dates_and_regions() -> None:
    assert not cn_resident_id_valid(_cn_id("11010519900230123"))  # 30 February
    assert not cn_resident_id_valid(_cn_id("11010521990101123"))  # born in the future
    assert not cn_resident_id_valid(_cn_id("99010519900307123"))  # no region 99


# --------------------------------------------------------------------------- IBAN


def test_iban_mod97() -> None:
    assert iban_valid("GB82 WEST 1234 5698 7654 32")
    assert iban_valid("DE89370400440532013000")
    assert not iban_valid("DE89 3704 0044 0532 0130 01")
    assert not iban_valid("XX89370400440532013000")


def test_iban_found_with_exact_span() -> None:
    text = "wire it to FR14 2004 1010 0505 0001 3M02 606 today"
    assert [(f.type, text[f.start : f.end]) for f in scan(text)] == [
        (FindingType.BANK_ACCOUNT, "FR14 2004 1010 0505 0001 3M02 606")
    ]
    assert scan("NL91ABNA0417164301 is rejected") == []


# --------------------------------------------------------------------------- JWT and PEM

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJiaWxsaW5nLWJvdCIsImV4cCI6MTc2NzIyNTYwMH0."
    "Xk3vQ9pLr7TzW2mN8bYc4hJ6sD1fGa0eKuV5qR3tP7w"
)


def test_jwt_requires_header_with_alg() -> None:
    text = f"token {JWT} expired"
    (finding,) = scan(text)
    assert finding.type is FindingType.TOKEN and finding.detector == "jwt"
    assert text[finding.start : finding.end] == JWT
    not_a_jwt = "eyJmb28iOiJiYXIifQ.eyJhIjoxfQ.c2lnbmF0dXJl"  # header {"foo":"bar"}
    assert scan(f"blob {not_a_jwt} end") == []


PEM_BODY = "MIIEowIBAAKCAQEAFAKEKEYxZlqB1mN2b3c4d5e6f7g8h9i0j1k2l3m4n5o6p7q8\nr9s0t1u2v3w4x5y6z7A8"


def test_pem_block_span_covers_begin_to_end() -> None:
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
    text = f"key:\n{block}\nthanks"
    (finding,) = scan(text)
    assert finding.type is FindingType.PRIVATE_KEY
    assert text[finding.start : finding.end] == block


def test_pem_truncated_and_json_escaped() -> None:
    truncated = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}"
    assert _types(f"cut off: {truncated}") == {"private_key"}
    escaped = '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n"}'
    assert _types(escaped) == {"private_key"}


def test_pem_header_without_key_material_is_not_a_secret() -> None:
    assert scan("grep for -----BEGIN RSA PRIVATE KEY----- in the repo") == []
    placeholder = "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----"
    assert scan(placeholder) == []
    assert (
        scan("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----") == []
    )


# --------------------------------------------------------------------------- key families

KEY_FAMILIES = [
    ("AKIAIOSFODNN7EXAMPLE", FindingType.API_KEY, "aws_access_key_id"),
    ("ghp_FAKEa1B2c3D4e5F6g7H8i9J0kL1mN2oP3q", FindingType.TOKEN, "github_token"),
    ("gho_FAKEa1B2c3D4e5F6g7H8i9J0kL1mN2oP3q", FindingType.TOKEN, "github_token"),
    ("ghu_FAKEa1B2c3D4e5F6g7H8i9J0kL1mN2oP3q", FindingType.TOKEN, "github_token"),
    (
        "github_pat_11FAKE0123456789abcdef_FAKEabcdefghijklmnopqrstuvwxyz0123",
        FindingType.TOKEN,
        "github_token",
    ),
    ("sk-proj-Qm8vX2rT7LpN4wZ9cB6yH1kD3fJ5sA0e", FindingType.API_KEY, "openai_api_key"),
    ("sk-FAKE3Fq9ZtLx8WvB2mKp7RnD4sYh6JcQ1aEo5uTg0iNw", FindingType.API_KEY, "openai_api_key"),
    ("sk-ant-api03-FAKEk9Xz2Lm8Qp4Rt6Vw1Yb3Nc5Df7Gh0Jk2", FindingType.API_KEY, "anthropic_api_key"),
    ("xoxb-2400000000001-5100000000002-FAKEq8Wm2Zx7Lp4Rt9Vb3Nc", FindingType.TOKEN, "slack_token"),
    (
        "https://hooks.slack.com/services/T0FAKE12A/B0FAKE34B/Xq8Wm2Zx7Lp4Rt9Vb3NcKd1F",
        FindingType.TOKEN,
        "slack_webhook",
    ),
    ("sk_live_FAKE4eC39HqLyjWDarjtT1zdp7dc", FindingType.API_KEY, "stripe_secret_key"),
    ("rk_live_FAKE51HqLyjWDarjtT1zdp7dcQ9", FindingType.API_KEY, "stripe_secret_key"),
    ("AIzaSyFAKE-0123456789abcdefghijKLMNOPQR", FindingType.API_KEY, "google_api_key"),
    ("glpat-FAKEx8Wm2Zx7Lp4Rt9Vb", FindingType.TOKEN, "gitlab_token"),
    ("npm_FAKEa1B2c3D4e5F6g7H8i9J0kL1mN2oP3qR4", FindingType.TOKEN, "npm_token"),
    ("hf_FAKEqWeRtYuIoPaSdFgHjKlZxCvBnM123456", FindingType.TOKEN, "huggingface_token"),
    ("LTAI5tFAKEq8Wm2Zx7Lp", FindingType.API_KEY, "alibaba_access_key_id"),
]


@pytest.mark.parametrize(("value", "kind", "detector"), KEY_FAMILIES)
def test_key_families_found_in_prose_with_exact_span(
    value: str, kind: FindingType, detector: str
) -> None:
    text = f"please remember {value} for later"
    findings = scan(text)
    assert [(f.type, f.detector, text[f.start : f.end]) for f in findings] == [
        (kind, detector, value)
    ]


@pytest.mark.parametrize(
    "placeholder",
    [
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "sk-your-openai-api-key-here",
        "sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "xoxb-your-bot-token-goes-here",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    ],
)
def test_documentation_placeholders_are_not_keys(placeholder: str) -> None:
    assert scan(f"format: {placeholder}") == []


def test_aws_secret_key_needs_its_context() -> None:
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert _spans(f"aws_secret_access_key = {secret}") == [secret]
    assert scan(f"path segment {secret} in a URL") == []


def test_bearer_and_basic_authorization_headers() -> None:
    text = "Authorization: Bearer FAKE7f3c9a1e5b8d2f4a6c0e9b7d5f3a1c8e"
    assert _types(text) == {"token"}
    assert _types("Authorization: Basic YWRtaW46U3VwM3JGQUtFcGFzcw==") == {"password"}
    assert scan("Authorization: Bearer $TOKEN") == []
    assert scan("Authorization: Bearer <token>") == []


# --------------------------------------------------------------------------- passwords and strings


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("DB_PASSWORD=Tr0ub4dor-and-3", "Tr0ub4dor-and-3"),
        ('password: "h7Gk#29xFAKE"', "h7Gk#29xFAKE"),
        ("pwd: Kx9#mQ2v", "Kx9#mQ2v"),
        ("passwd=Sup3r!pw", "Sup3r!pw"),
        ("my wifi password is Sunfl0wer!2024, thanks", "Sunfl0wer!2024"),
        ("数据库密码是 Zq7vR2mX9kLp，别告诉别人", "Zq7vR2mX9kLp"),
        ("密码: Lihua@2024", "Lihua@2024"),
        ("mysql -u root -pS3cr3tRootFAKE orders", "S3cr3tRootFAKE"),
        ("<password>Mvn#Settings2024</password>", "Mvn#Settings2024"),
    ],
)
def test_password_assignments(text: str, value: str) -> None:
    findings = scan(text)
    assert [(f.type, text[f.start : f.end]) for f in findings] == [(FindingType.PASSWORD, value)]


@pytest.mark.parametrize(
    "text",
    [
        "password=<your password>",
        "API_KEY=...",
        "${API_KEY}",
        "api_key = os.environ['OPENAI_API_KEY']",
        "use a strong password",
        "the token expires after 1 hour",
        "password: str = Field(min_length=12)",
        "Error: invalid password: must contain a digit",
        "DB_PASSWORD: ${{ secrets.DB_PASSWORD }}",
        "password: ******",
        "密码至少 12 位，包含大小写字母和数字",
        "令牌有效期是 1 小时",
        "max_tokens: 4096",
        "auth_method: oauth2_client_credentials",
    ],
)
def test_placeholders_and_prose_are_not_secrets(text: str) -> None:
    assert scan(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "postgres://app:Pg9xFAKE@db:5432/app",
        "postgresql+psycopg2://app:Pg9xFAKE@db/app",
        "mysql://root:My5qlFAKE@127.0.0.1:3306/shop",
        "mongodb+srv://u:Mg0FAKEpw@cluster0.example.net/db",
        "redis://:r3d1sFAKEpass@cache:6379/0",
        "Server=tcp:sql.example.net,1433;Database=erp;User ID=sa;Password=Erp#2024FAKE;",
    ],
)
def test_connection_strings_with_credentials(text: str) -> None:
    findings = scan(f"conn {text} end")
    assert [f.type for f in findings] == [FindingType.CONNECTION_STRING]


def test_connection_strings_without_credentials_are_fine() -> None:
    assert scan("postgres://localhost:5432/app_dev and redis://cache.internal:6379/0") == []
    assert scan("Host=db;Database=app;Username=app;Password=${DB_PASSWORD}") == []


def test_url_password_only_redacts_the_password() -> None:
    text = "git remote set-url origin https://deploy-bot:Gh7pW2x9LqFAKE@git.example.com/acme/x.git"
    assert redact(text) == (
        "git remote set-url origin https://deploy-bot:[REDACTED:password]@git.example.com/acme/x.git"
    )


def test_high_entropy_value_needs_a_secret_key_name() -> None:
    value = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"
    assert _types(f"api_secret: {value}") == {"api_key"}
    assert _types(f"SENTRY_AUTH_TOKEN={value}") == {"token"}
    assert _types(f"令牌：{value}") == {"token"}
    assert scan(f"commit {value}") == []
    assert scan(f"checksum: {value}") == []


# --------------------------------------------------------------------------- contact PII


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("手机号 13812345678，以后用", "13812345678"),
        ("手机 138-1234-5678", "138-1234-5678"),
        ("客户电话 +86 186 2233 4455", "+86 186 2233 4455"),
        ("call (212) 555-0187 tonight", "(212) 555-0187"),
        ("office +44 20 7946 0958", "+44 20 7946 0958"),
        ("联系电话：010-6552 9988", "010-6552 9988"),
    ],
)
def test_phone_numbers(text: str, value: str) -> None:
    assert [(f.type, text[f.start : f.end]) for f in scan(text)] == [
        (FindingType.PHONE_NUMBER, value)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "v1.22 on port 5433",
        "released 2024-07-15, build 20240315.3",
        "10.0.12.138:8443",
        "request 550e8400-e29b-41d4-a716-446655440000",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "JIRA-1234",
        "订单 13912345678 已付款",
        "created_at=1712345678901",
    ],
)
def test_engineering_numbers_are_not_pii(text: str) -> None:
    assert scan(text) == []


def test_email_addresses_and_lookalikes() -> None:
    assert _spans("mail jordan.miles@example.com today") == ["jordan.miles@example.com"]
    assert _spans("我的邮箱是lina_travel@example.com，谢谢") == ["lina_travel@example.com"]
    assert scan("git clone git@github.com:acme/billing-api.git") == []
    assert scan("assets icon@2x.png and react@18.2.0") == []


def test_postal_addresses() -> None:
    assert _spans("我家住在北京市朝阳区建国路88号，谢谢") == ["北京市朝阳区建国路88号"]
    assert _spans("寄到上海市浦东新区世纪大道100号") == ["上海市浦东新区世纪大道100号"]
    assert _types("Ship it to 221B Baker Street, London") == {"postal_address"}
    assert scan("坐地铁10号线，线路2号今天割接") == []
    assert scan("Upload the slides to Google Drive") == []


# --------------------------------------------------------------------------- other ids and formats


def test_hong_kong_id_check_digit() -> None:
    assert _spans("HK ID A123456(3) for the visa") == ["A123456(3)"]
    assert scan("HK ID A123456(7) for the visa") == []  # wrong check digit


def test_taiwan_id_needs_checksum_and_an_id_label() -> None:
    assert _types("身份證 A123456789") == {"national_id"}
    assert scan("身份證 A123456788") == []
    assert scan("SKU A123456789 is out of stock") == []


def test_lowercase_iban_and_prose_that_happens_to_look_like_one() -> None:
    assert _types("iban: de89 3704 0044 0532 0130 00") == {"bank_account"}
    assert scan("ES2022 target is the default for the build") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("My address is 45 Rue de Rivoli, Paris", "45 Rue de Rivoli, Paris"),
        ("Lieferung an Hauptstraße 5, 10115 Berlin", "Hauptstraße 5, 10115 Berlin"),
        ("寄到成都市武侯区天府大道北段1700号环球中心", "成都市武侯区天府大道北段1700号"),
        ("香港九龙弥敦道 123 号", "香港九龙弥敦道 123 号"),
    ],
)
def test_more_address_shapes(text: str, value: str) -> None:
    assert [(f.type, text[f.start : f.end]) for f in scan(text)] == [
        (FindingType.POSTAL_ADDRESS, value)
    ]


def test_cli_passcodes_and_national_mobile_formats() -> None:
    assert _spans("docker login -u ci -p Dck3r!FAKEpw registry.example.com") == ["Dck3r!FAKEpw"]
    assert _spans("Zoom meeting ID 812 3456 7890, passcode 482913") == ["482913"]
    assert _spans("Reach me on 07700 900123 (UK mobile)") == ["07700 900123"]
    assert _spans("write to lina [at] example [dot] com") == ["lina [at] example [dot] com"]


@pytest.mark.parametrize(
    "text",
    [
        "return MemoryService.open(data_dir, passphrase=passphrase, create=create)",
        "self._passphrase = passphrase",
        "userid = passwd = acct = ''",
        "with MemoryService.open(data_dir, passphrase=PASSPHRASE) as svc:",
        "def open_store(source: str, passphrase: str | None) -> KeyStore:",
        "passwd: files sss",
        "the auth service 7f3a9c1e5b8d2f4a6c0e handles logins",
        "密码|口令|令牌",
    ],
)
def test_code_that_handles_secrets_is_not_a_secret(text: str) -> None:
    assert scan(text) == []


def test_passphrase_of_plain_words() -> None:
    assert _spans("passphrase: correct horse battery staple") == ["correct horse battery staple"]
    assert scan("passphrase: is required for ed25519 keys") == []


def test_large_input_stays_fast() -> None:
    text = "\n".join(str(s["text"]) for s in _load_corpus()) * 4
    started = time.perf_counter()
    scan(text)
    assert time.perf_counter() - started < 5.0
