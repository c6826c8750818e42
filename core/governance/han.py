"""Chinese compared in one script: Traditional characters read as their Simplified forms.

The judge's and the fences' word lists (negations, replacement markers, kin words, the
units they compare) are written in Simplified Chinese. Texts written in Traditional Chinese
(Taiwan, Hong Kong, Macau and many overseas writers) went past every one of them: "我沒有
高血壓" was not a denial, "換成" no replacement, and "用戶計畫出售公司" shared no unit with
"用户计划出售公司". Folding character by character is what OpenCC's conversion does first;
the phrase level (regional words such as 軟體 / 软件) is not folded: the embedder reads those.

Only comparisons use the folded text; what is stored and shown keeps the writer's script.
"""

from __future__ import annotations

import functools

from core.governance.han_table import SIMPLIFIED, TRADITIONAL


@functools.cache
def _table() -> dict[int, int]:
    return str.maketrans(TRADITIONAL, SIMPLIFIED)


def simplified(text: str) -> str:
    """`text` with each Traditional Chinese character as its Simplified form."""
    return text.translate(_table())
