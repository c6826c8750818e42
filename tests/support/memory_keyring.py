"""An in-process keyring backend, selected with PYTHON_KEYRING_BACKEND in tests.

It behaves like an OS keyring (set/get/delete by service and user) but keeps the secrets
in a dict, so tests can exercise the keyring path on a headless machine.
"""

from __future__ import annotations

from typing import ClassVar

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    """Keyring backend holding secrets in a class-level dict for the process lifetime."""

    priority = 1  # type: ignore[assignment]
    secrets: ClassVar[dict[tuple[str, str], str]] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        try:
            del self.secrets[(service, username)]
        except KeyError:
            raise PasswordDeleteError("no such password") from None
