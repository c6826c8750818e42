"""Declared relations (#40) on a team store, on a real PostgreSQL server: a member who names
another member's private memory in `replaces` or `same_as` learns nothing and changes
nothing (row-level security hides the row; the refusal reads as for an unknown id). Team
content is another matter: any member may write it, and a declared replacement does only
what an explicit "instead of" already did at equal authority.

The cast, as in test_team_logins.py: ana created the store; ben is a member with his own
login.
"""

from __future__ import annotations

import pytest

from core import InvalidInputError
from tests.core.storage.test_team_attacks import ANA, SECRET, TEAM
from tests.core.storage.test_team_logins import Team
from tests.core.storage.test_team_logins import team as team  # the fixture


def test_ben_cannot_replace_or_merge_into_anas_private_memory(team: Team) -> None:
    ana, ben, _tmp, _url = team
    private = ana.memories.remember(ANA, SECRET).value.record
    assert private is not None
    refusals = []
    for declared in ({"replaces": [private.id]}, {"same_as": private.id}):
        with pytest.raises(InvalidInputError) as err:
            ben.memories.remember(TEAM, "Therapy is on Fridays now.", **declared)  # type: ignore[arg-type]
        refusals.append(str(err.value).replace(private.id, "X"))
    with pytest.raises(InvalidInputError) as unknown:
        ben.memories.remember(TEAM, "Therapy is on Fridays now.", replaces=["X"])
    # The same words as for an id that does not exist: nothing says the row is there.
    assert refusals[0] == str(unknown.value)
    again = ana.memories.get_memory(private.id)
    assert again.status.value == "active" and again.content == private.content
    assert [d.action for d in ana.memories.history(private.id)] == ["remember"]


def test_a_declared_replacement_of_team_content_acts_at_equal_authority(team: Team) -> None:
    ana, ben, _tmp, _url = team
    old = ana.memories.remember(TEAM, "The offsite is in Lisbon.").value.record
    assert old is not None
    new = ben.memories.remember(TEAM, "We moved the offsite to Porto.", replaces=[old.id]).value
    assert new.superseded == (old.id,)
    assert ana.memories.get_memory(old.id).superseded_by == new.record.id  # type: ignore[union-attr]
