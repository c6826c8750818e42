"""Where the timeline's text search is answered (#13): by the core's sealed text index until
every record is cached, then from the cache; the results are the same either way."""

from __future__ import annotations

from core import ManualClock, MemoryFilter, MemoryService

from ui.models.timeline_source import ScanCache, TimelineFilter, open_source


def _contents(service: MemoryService, flt: TimelineFilter, cache: ScanCache, now) -> list[str]:  # type: ignore[no-untyped-def]
    source = open_source(service, flt, now, cache)
    out: list[str] = []
    while not source.exhausted():
        out += [r.content for r in source.next_page(50)]
    return out


def test_text_search_before_and_after_the_warm_up_agree(
    demo: MemoryService, clock: ManualClock
) -> None:
    now = clock.now()
    everything = demo.memories.list_memories(MemoryFilter(limit=100_000))
    scoped_hits = 0
    for needle in ("pnpm", "PNPM", "香菜", "the", "no such words at all"):
        expected = [r.content for r in everything if needle.casefold() in r.content.casefold()]
        cold = ScanCache()
        flt = TimelineFilter(text=needle)
        assert _contents(demo, flt, cold, now) == expected, needle
        assert not cold.holds_everything(demo)  # answered by the core, nothing else read
        warm = ScanCache()
        assert warm.warm(demo) and warm.holds_everything(demo)
        assert _contents(demo, flt, warm, now) == expected, needle
        # Free scope words with text: the core narrows by text, the scope words filter here.
        scoped = TimelineFilter(text=needle, scope_text="shop")
        want = [
            r.content
            for r in everything
            if needle.casefold() in r.content.casefold() and "shop" in str(r.scope).casefold()
        ]
        assert _contents(demo, scoped, ScanCache(), now) == want, needle
        scoped_hits += len(want)
    assert scoped_hits > 0  # the scope words did select something


def test_a_change_after_the_warm_up_sends_text_search_back_to_the_core(
    demo: MemoryService, clock: ManualClock
) -> None:
    cache = ScanCache()
    cache.warm(demo)
    demo.memories.remember({"user": "alice"}, "The walrus feeding schedule is at noon.")
    assert not cache.holds_everything(demo)
    found = _contents(demo, TimelineFilter(text="walrus"), cache, clock.now())
    assert found == ["The walrus feeding schedule is at noon."]
