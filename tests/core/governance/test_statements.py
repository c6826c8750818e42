"""Statement parsing helpers (R9, #17)."""

from core.governance.statements import speaker_relative


def test_speaker_relative_words_in_english_and_chinese() -> None:
    """#17: "I", "my", "we", "you" and 我/你/您/咱 depend on who says them; names do not."""
    for text in (
        "I moved to Paris.",
        "My cat is Luna.",
        "We're in Lisbon",
        "You should go",
        "我住在上海",
        "你试试",
        "咱们走吧",
    ):
        assert speaker_relative(text), text
    for text in (
        "The offsite is in Porto.",
        "Mei lives in Berlin.",
        "Illness is rare",
        "团队聚会在周五",
    ):
        assert not speaker_relative(text), text
