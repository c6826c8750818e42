"""Secrets in provider-specific formats (cloud keys, forge tokens, webhooks, JWTs).

A provider prefix is the most specific evidence there is, so these rules outrank every
context heuristic when spans overlap.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from core.governance.sensitivity.finding import FindingType
from core.governance.sensitivity.heuristics import entropy, is_placeholder, is_wordy, looks_random
from core.governance.sensitivity.rules import RegexRule, Validator, match_value, regex_rule

PROVIDER_PRIORITY = 95


def _provider(
    detector: str, kind: FindingType, pattern: str, validate: Validator | None = None
) -> RegexRule:
    """A provider-format rule; all of them share the top rank below PEM blocks."""
    return regex_rule(detector, kind, pattern, validate, priority=PROVIDER_PRIORITY)


_L = r"(?<![A-Za-z0-9_\-])"  # ASCII-only boundaries: \b treats CJK characters as word chars
_R = r"(?![A-Za-z0-9_\-])"


def _token_ok(m: re.Match[str]) -> bool:
    """Reject provider-format placeholders such as ``ghp_xxxx...`` or ``sk-your-key-here``."""
    value = match_value(m)
    body = re.sub(r"^[A-Za-z]+[_-](?:[a-z]+[_-])?", "", value)
    return not is_placeholder(body) and not is_wordy(body) and entropy(body) >= 2.8


def _slack_webhook_ok(m: re.Match[str]) -> bool:
    """The documented Slack webhook example uses zeros and X's; real ones are random."""
    tail = match_value(m).rsplit("/", 1)[-1]
    return not is_placeholder(tail) and entropy(tail) >= 3.0


def _aws_secret_ok(m: re.Match[str]) -> bool:
    """AWS secret keys are 40 random base64 characters."""
    return looks_random(match_value(m), 40)


def _jwt_ok(m: re.Match[str]) -> bool:
    """A JWT's header is base64url JSON naming its algorithm; this rules out random dotted ids."""
    header = match_value(m).split(".", 1)[0]
    try:
        raw = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
        decoded = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):
        return False  # RecursionError: a crafted header nested thousands of levels deep
    return isinstance(decoded, dict) and "alg" in decoded


RULES: tuple[RegexRule, ...] = (
    _provider(
        "aws_access_key_id",
        FindingType.API_KEY,
        rf"{_L}(?P<v>(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{{16}}){_R}",
        _token_ok,
    ),
    _provider(
        "aws_secret_access_key",
        FindingType.API_KEY,
        r"(?i:aws_?secret_?(?:access_?)?key|aws[ ]secret(?:[ ]access)?[ ]key|secretaccesskey)"
        r"[\"']?\s*(?:[:=]|：|是|为)\s*[\"']?(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        _aws_secret_ok,
    ),
    _provider(
        "github_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>gh[pousr]_[A-Za-z0-9]{{30,255}}|github_pat_[A-Za-z0-9_]{{40,255}}){_R}",
        _token_ok,
    ),
    _provider(
        "gitlab_token", FindingType.TOKEN, rf"{_L}(?P<v>glpat-[A-Za-z0-9_\-]{{20,}}){_R}", _token_ok
    ),
    _provider(
        "anthropic_api_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>sk-ant-[A-Za-z0-9_\-]{{20,}}){_R}",
        _token_ok,
    ),
    _provider(
        "openai_api_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{{20,}}){_R}",
        _token_ok,
    ),
    _provider(
        "stripe_secret_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{{16,}}){_R}",
        _token_ok,
    ),
    _provider(
        "google_api_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>AIza[0-9A-Za-z_\-]{{35}}){_R}",
        _token_ok,
    ),
    _provider(
        "slack_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>xox[abposr]-[A-Za-z0-9\-]{{10,}}){_R}",
        _token_ok,
    ),
    _provider(
        "slack_webhook",
        FindingType.TOKEN,
        r"(?P<v>https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,})",
        _slack_webhook_ok,
    ),
    _provider(
        "discord_webhook",
        FindingType.TOKEN,
        r"(?P<v>https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w\-]{40,})",
        _slack_webhook_ok,
    ),
    _provider(
        "linear_api_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>lin_(?:api|oauth)_[A-Za-z0-9]{{32,}}){_R}",
        _token_ok,
    ),
    _provider(
        "pypi_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{{40,}}){_R}",
    ),
    _provider(
        "stripe_webhook_secret",
        FindingType.API_KEY,
        rf"{_L}(?P<v>whsec_[A-Za-z0-9]{{24,}}){_R}",
        _token_ok,
    ),
    _provider(
        "slack_app_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>xapp-\d-[A-Za-z0-9\-]{{20,}}){_R}",
        _token_ok,
    ),
    _provider(
        "digitalocean_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>do[por]_v1_[A-Za-z0-9]{{64}}){_R}",
        _token_ok,
    ),
    _provider(
        "shopify_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>shp(?:at|ca|pa|ss)_[A-Fa-f0-9]{{32}}){_R}",
        _token_ok,
    ),
    _provider(
        "atlassian_api_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>ATATT3[A-Za-z0-9_\-=]{{50,}}){_R}",
        _token_ok,
    ),
    _provider("npm_token", FindingType.TOKEN, rf"{_L}(?P<v>npm_[A-Za-z0-9]{{36}}){_R}", _token_ok),
    _provider(
        "huggingface_token", FindingType.TOKEN, rf"{_L}(?P<v>hf_[A-Za-z0-9]{{30,}}){_R}", _token_ok
    ),
    _provider(
        "sendgrid_api_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>SG\.[A-Za-z0-9_\-]{{16,32}}\.[A-Za-z0-9_\-]{{16,64}}){_R}",
        _token_ok,
    ),
    _provider(
        "alibaba_access_key_id",
        FindingType.API_KEY,
        rf"{_L}(?P<v>LTAI[A-Za-z0-9]{{12,20}}){_R}",
        _token_ok,
    ),
    _provider(
        "tencent_secret_id",
        FindingType.API_KEY,
        rf"{_L}(?P<v>AKID[A-Za-z0-9]{{32}}){_R}",
        _token_ok,
    ),
    _provider(
        "jwt",
        FindingType.TOKEN,
        rf"{_L}(?P<v>eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]*){_R}",
        _jwt_ok,
    ),
)
