"""Data keys and where they live (R24).

A store has a `KeySet`: one or more 256-bit AES keys by id (more than one only during a
rotation) plus a fingerprint key for keyed hashes that must survive rotation (deletion
fences, duplicate checks). The key set is kept in the OS keyring when one works; otherwise
in a key file next to the store, encrypted with a key derived from the user's passphrase
(scrypt). It is never written anywhere in plaintext.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from core.crypto.keyfile import parse_key_file
from core.errors import (
    IntegrityError,
    InvalidInputError,
    KeyUnavailableError,
    WrongPassphraseError,
)

KEYRING_SERVICE = "memory-center"
KEY_FILE_NAME = "keyfile.json"
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
MIN_PASSPHRASE = 8


@dataclass(frozen=True)
class KeySet:
    """The keys of one store."""

    keys: dict[str, bytes]
    active_id: str
    fingerprint_key: bytes
    pending_id: str | None = field(default=None)
    # This device's private key (X25519) in a store shared by several devices: other devices
    # seal new key sets to its public key (core/crypto/envelope.py). None for a local store.
    device_key: bytes | None = field(default=None)
    # Personal keys on a team store, by member: (key id, raw key). A device holds only its
    # own member's; they seal that member's `user=X` scopes. Never in invitations to others,
    # never in the team envelope; rotation of the team key leaves them alone.
    personal: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    # This device's Ed25519 key: it signs membership records (core/crypto/membership.py).
    signing_key: bytes | None = field(default=None)
    # The store creator's device signing key (hex): where this device's replay of the
    # signed membership starts. Handed over only inside a sealed invitation, never read
    # from the server, which could name any key.
    anchor: str | None = field(default=None)
    # The database password of a team store, kept here (sealed like the keys) rather than
    # in the clear in the directory's `store.json`, which holds the URL without it.
    db_password: str | None = field(default=None)

    @classmethod
    def generate(cls) -> KeySet:
        """A fresh key set with one data key."""
        kid = new_key_id()
        return cls({kid: AESGCM.generate_key(256)}, kid, secrets.token_bytes(32))

    def with_new_key(self) -> KeySet:
        """Add a key and make it active, keeping the old ones (first step of rotation)."""
        kid = new_key_id()
        keys = dict(self.keys)
        keys[kid] = AESGCM.generate_key(256)
        return replace(self, keys=keys, active_id=kid, pending_id=kid)

    def retire_others(self) -> KeySet:
        """Drop every key but the active one (last step of rotation)."""
        return replace(self, keys={self.active_id: self.keys[self.active_id]}, pending_id=None)

    def with_device_key(self, device_key: bytes | None) -> KeySet:
        """The same keys held by a device with this private key (None: shareable form)."""
        return replace(self, device_key=device_key)

    def team_only(self) -> KeySet:
        """What may be shared with another member: the team keys and the trust anchor; no
        device, signing or personal key."""
        return replace(self, device_key=None, personal={}, signing_key=None, db_password=None)

    def with_personal(self, member: str, key_id: str, key: bytes) -> KeySet:
        """The key set also holding `member`'s personal key."""
        return replace(self, personal={**self.personal, member: (key_id, key)})

    @property
    def shared(self) -> bool:
        """True on a device of a team store (it has a device key); private scopes apply."""
        return self.device_key is not None

    def to_bytes(self) -> bytes:
        """Serialise for a key store (then encrypted or handed to the keyring)."""
        doc: dict[str, object] = {
            "format": 1,
            "active": self.active_id,
            "pending": self.pending_id,
            "keys": {k: _b64(v) for k, v in self.keys.items()},
            "fingerprint": _b64(self.fingerprint_key),
        }
        if self.device_key is not None:
            doc["device"] = _b64(self.device_key)
        if self.personal:
            doc["personal"] = {m: [kid, _b64(raw)] for m, (kid, raw) in self.personal.items()}
        if self.signing_key is not None:
            doc["signing"] = _b64(self.signing_key)
        if self.anchor is not None:
            doc["anchor"] = self.anchor
        if self.db_password is not None:
            doc["db_password"] = self.db_password
        return json.dumps(doc, sort_keys=True).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> KeySet:
        """Parse what `to_bytes` wrote.

        Raises:
            IntegrityError: the document is not a key set.
        """
        try:
            doc = json.loads(raw)
            if not isinstance(doc, dict) or not isinstance(doc.get("keys"), dict):
                raise ValueError("not a key set object")
            keys = {k: base64.b64decode(v) for k, v in doc["keys"].items()}
            device = base64.b64decode(doc["device"]) if doc.get("device") else None
            personal = {
                str(m): (str(pair[0]), base64.b64decode(pair[1]))
                for m, pair in dict(doc.get("personal") or {}).items()
            }
            signing = base64.b64decode(doc["signing"]) if doc.get("signing") else None
            anchor = str(doc["anchor"]) if doc.get("anchor") else None
            # An empty password is a password (`user:@host`): only an absent one is None.
            db_password = None if doc.get("db_password") is None else str(doc["db_password"])
            ks = cls(
                keys,
                doc["active"],
                base64.b64decode(doc["fingerprint"]),
                doc.get("pending"),
                device,
                personal,
                signing,
                anchor,
                db_password,
            )
        except (ValueError, KeyError, TypeError, IndexError, RecursionError) as exc:
            raise IntegrityError(f"the stored key set is unreadable: {exc}") from None
        lengths = [len(v) for v in ks.keys.values()] + [len(k) for _i, k in personal.values()]
        if ks.active_id not in ks.keys or any(n != 32 for n in lengths):
            raise IntegrityError("the stored key set is inconsistent")
        return ks


# Personal key ids start with this letter, team key ids with "k": a reader that meets a
# personal key it lacks knows at once the row is another member's, with no key reload.
PERSONAL_PREFIX = "u"


def new_personal_key() -> tuple[str, bytes]:
    """A fresh personal key: (key id, 256-bit key)."""
    return PERSONAL_PREFIX + secrets.token_hex(4), AESGCM.generate_key(256)


def new_key_id() -> str:
    """A short random key id; it appears in every ciphertext header."""
    return "k" + secrets.token_hex(4)


class KeyStore(Protocol):
    """Somewhere a key set is kept."""

    source: str

    def load(self) -> KeySet:
        """Return the key set or raise KeyUnavailableError."""
        ...

    def save(self, keys: KeySet) -> None:
        """Replace the stored key set atomically."""
        ...

    def describe(self) -> str:
        """One line for `status`: where the key lives."""
        ...


class KeyringKeyStore:
    """The key set as one secret in the OS keyring, under the store's id."""

    source = "keyring"

    def __init__(self, store_id: str) -> None:
        self._account = f"store-{store_id}"

    def load(self) -> KeySet:
        """Read the key set from the keyring."""
        import keyring
        import keyring.errors

        try:
            secret = keyring.get_password(KEYRING_SERVICE, self._account)
        except keyring.errors.KeyringError as exc:
            raise KeyUnavailableError(f"the OS keyring could not be read: {exc}") from None
        if secret is None:
            raise KeyUnavailableError(
                f"the OS keyring holds no key for this store ({KEYRING_SERVICE}/{self._account}); "
                "without it the store cannot be decrypted"
            )
        try:
            raw = base64.b64decode(secret, validate=True)
        except (binascii.Error, ValueError):
            raise KeyUnavailableError("the OS keyring entry for this store is damaged") from None
        return KeySet.from_bytes(raw)

    def save(self, keys: KeySet) -> None:
        """Write the key set into the keyring."""
        import keyring
        import keyring.errors

        try:
            keyring.set_password(
                KEYRING_SERVICE, self._account, base64.b64encode(keys.to_bytes()).decode()
            )
        except keyring.errors.KeyringError as exc:
            raise KeyUnavailableError(f"the OS keyring refused the key: {exc}") from None

    def describe(self) -> str:
        """Name the keyring backend in use."""
        return f"OS keyring ({keyring_backend_name()})"


class PassphraseKeyStore:
    """The key set in a file, sealed with a key derived from a passphrase (scrypt + AES-GCM)."""

    source = "passphrase"

    def __init__(self, path: Path, passphrase: str) -> None:
        self._path = path
        self._passphrase = passphrase

    @property
    def path(self) -> Path:
        """Where the key file lives."""
        return self._path

    def load(self) -> KeySet:
        """Unlock the key file with the passphrase."""
        try:
            raw_file = self._path.read_bytes()
        except FileNotFoundError:
            raise KeyUnavailableError(f"key file missing: {self._path}") from None
        except OSError as exc:
            raise KeyUnavailableError(f"key file unreadable: {self._path}: {exc}") from None
        sealed = parse_key_file(raw_file, self._path)
        passphrase = _passphrase_bytes(self._passphrase)
        try:
            kek = _derive_bytes(passphrase, sealed.salt, sealed.n, sealed.r, sealed.p)
            raw = AESGCM(kek).decrypt(sealed.nonce, sealed.ciphertext, b"keyset")
        except InvalidTag:
            raise WrongPassphraseError(
                "wrong passphrase: the key file could not be unlocked"
            ) from None
        return KeySet.from_bytes(raw)

    def save(self, keys: KeySet) -> None:
        """Seal the key set with a fresh salt and replace the file atomically; the file is
        read back and opened with the derived key before this returns."""
        data, kek = self._sealed(keys)
        atomic_write(self._path, data)
        self._check_written(keys, kek)

    def create(self, keys: KeySet) -> None:
        """Write the key file of a new store; an existing file is never replaced.

        The file appears complete or not at all (temporary file, fsync, link into place,
        fsync of the folder), and is then read back and unlocked with the passphrase itself
        (a fresh derivation) before the store is reported ready.

        Raises:
            KeyUnavailableError: a key file is there already, or the written file does not
                open with the passphrase.
        """
        data, _kek = self._sealed(keys)
        try:
            atomic_write(self._path, data, replace=False)
        except FileExistsError:
            raise KeyUnavailableError(
                f"a key file is there already: {self._path}; it is never replaced (move it "
                "elsewhere first if it belongs to no store)"
            ) from None
        try:
            written = self.load()
        except KeyUnavailableError as exc:
            raise KeyUnavailableError(
                f"the new key file does not open with the passphrase: {self._path}: {exc}"
            ) from None
        if written.to_bytes() != keys.to_bytes():
            raise KeyUnavailableError(f"the new key file holds other keys: {self._path}")

    def _sealed(self, keys: KeySet) -> tuple[bytes, bytes]:
        check_passphrase(self._passphrase)
        salt = os.urandom(16)
        nonce = os.urandom(12)
        kek = _derive(self._passphrase, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
        doc = {
            "format": 1,
            "kdf": "scrypt",
            "n": SCRYPT_N,
            "r": SCRYPT_R,
            "p": SCRYPT_P,
            "salt": _b64(salt),
            "nonce": _b64(nonce),
            "ciphertext": _b64(AESGCM(kek).encrypt(nonce, keys.to_bytes(), b"keyset")),
        }
        return json.dumps(doc, indent=2).encode(), kek

    def _check_written(self, keys: KeySet, kek: bytes) -> None:
        """Read the file back and open it with the key just derived (no second scrypt)."""
        try:
            sealed = parse_key_file(self._path.read_bytes(), self._path)
            raw = AESGCM(kek).decrypt(sealed.nonce, sealed.ciphertext, b"keyset")
        except (OSError, InvalidTag, KeyUnavailableError) as exc:
            raise KeyUnavailableError(
                f"the key file did not read back as written: {self._path}: "
                f"{str(exc) or 'its authentication tag does not verify'}"
            ) from None
        if KeySet.from_bytes(raw).to_bytes() != keys.to_bytes():
            raise KeyUnavailableError(f"the key file holds other keys: {self._path}")

    def describe(self) -> str:
        """Say that a passphrase protects the key file."""
        return f"passphrase-protected key file ({self._path.name})"


def check_passphrase(passphrase: str) -> None:
    """Refuse passphrases too short to resist guessing.

    Raises:
        InvalidInputError: the passphrase is shorter than MIN_PASSPHRASE.
    """
    if len(passphrase) < MIN_PASSPHRASE:
        raise InvalidInputError("passphrase", f"must be at least {MIN_PASSPHRASE} characters")


def keyring_backend_name() -> str:
    """The class name of the keyring backend that `keyring` would use."""
    import keyring

    backend = keyring.get_keyring()
    return f"{type(backend).__module__}.{type(backend).__name__}"


def keyring_usable() -> bool:
    """True when the OS keyring can hold secrets safely.

    The fail backend (headless machines) and plaintext file backends (keyrings.alt) do not
    count: we would rather ask for a passphrase than store a key in the clear.
    """
    import keyring
    import keyring.errors

    backend = keyring.get_keyring()
    name = keyring_backend_name().lower()
    if "fail" in name or "plaintext" in name or "keyrings.alt" in name or "null" in name:
        return False
    try:
        priority = float(getattr(backend, "priority", 1))
    except (TypeError, ValueError, keyring.errors.KeyringError):
        return False
    return priority > 0


def atomic_write(path: Path, data: bytes, *, replace: bool = True) -> None:
    """Write a file so that readers see the old or the new bytes, never half of them.

    With `replace=False` an existing file is left alone and FileExistsError is raised
    (the new file is linked into place, which fails when the name is taken, so two
    writers racing for a new name cannot both succeed)."""
    atomic_write_with(path, lambda handle: handle.write(data), replace=replace)


def atomic_write_with(
    path: Path, fill: Callable[[BinaryIO], object], *, replace: bool = True
) -> None:
    """`atomic_write` for content that `fill` writes piece by piece into the open file."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            fill(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(tmp, path)
        else:
            _link_new(tmp, path)
        _fsync_folder(path.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_user_file(path: Path, data: bytes, field: str = "path") -> None:
    """Write a file the user named (an export, an invitation): owner-only, whole or not at
    all (a temporary file in the same folder, then a rename), and only over nothing or a
    regular file. A symbolic link, a FIFO, a device or a folder at `path` is refused: the
    rename would replace it (a device file became a regular one), and opening it to write
    would follow the link or block on the FIFO.

    Raises:
        InvalidInputError: naming `field`, what is at the path, or why it cannot be written.
    """
    import stat

    try:
        found = os.lstat(path)
    except FileNotFoundError:
        found = None
    except OSError as exc:
        raise InvalidInputError(field, f"cannot write {path}: {exc.strerror}") from None
    if found is not None and not stat.S_ISREG(found.st_mode):
        what = (
            "a symbolic link"
            if stat.S_ISLNK(found.st_mode)
            else "a folder"
            if stat.S_ISDIR(found.st_mode)
            else "a FIFO"
            if stat.S_ISFIFO(found.st_mode)
            else "a device"
            if stat.S_ISCHR(found.st_mode) or stat.S_ISBLK(found.st_mode)
            else "not a regular file"
        )
        raise InvalidInputError(
            field, f"{path} is {what}; give the name of a regular file or of a new one"
        )
    try:
        atomic_write(path, data)
    except OSError as exc:
        raise InvalidInputError(field, f"cannot write {path}: {exc.strerror}") from None


def _link_new(tmp: Path, path: Path) -> None:
    """Move `tmp` to the new name `path`, failing with FileExistsError if it is taken."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:
        # A file system without hard links: the check and the rename are two steps, still
        # run under the store directory's lock by every caller that creates a store.
        if path.exists() or path.is_symlink():
            raise FileExistsError(path) from None
        os.replace(tmp, path)
        return
    tmp.unlink()


def _fsync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _derive(passphrase: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return _derive_bytes(_passphrase_bytes(passphrase), salt, n, r, p)


def _derive_bytes(passphrase: bytes, salt: bytes, n: int, r: int, p: int) -> bytes:
    ahead = _AHEAD.pop((passphrase, salt, n, r, p), None)
    if ahead is not None:
        return ahead.result()
    return _scrypt(passphrase, salt, n, r, p)


def _scrypt(passphrase: bytes, salt: bytes, n: int, r: int, p: int) -> bytes:
    return Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(passphrase)


class _Derivation(threading.Thread):
    """One scrypt derivation run beside the caller; `result` gives what deriving in the
    caller would have given: the key, or the same exception."""

    def __init__(self, passphrase: bytes, salt: bytes, n: int, r: int, p: int) -> None:
        super().__init__(name="memory-center-unlock-ahead", daemon=True)
        self._inputs = (passphrase, salt, n, r, p)
        self._derive = _scrypt
        self._kek = b""
        self._error: BaseException | None = None

    def run(self) -> None:
        try:
            self._kek = self._derive(*self._inputs)
        except BaseException as exc:  # raised in the caller by `result`
            self._error = exc

    def result(self) -> bytes:
        """The derived key once the thread is done.

        Raises:
            Whatever the derivation raised.
        """
        self.join()
        if self._error is not None:
            raise self._error
        return self._kek


# Derivations started ahead of the open that will need them, by their exact inputs.
_AHEAD: dict[tuple[bytes, bytes, int, int, int], _Derivation] = {}


def derive_ahead(path: Path, passphrase: str) -> None:
    """Start deriving, in a thread, the key that unlocks the key file at `path`.

    A command run in its own process spends ~0.1 s in scrypt and ~0.2 s importing the
    engine before it can open the store. scrypt releases the GIL, so started first it runs
    on another core while the imports proceed, and the open takes its result instead of
    deriving (`PassphraseKeyStore.load`, only for the very same passphrase, salt and
    parameters). Nothing is decided here: a key file that is missing or malformed, or a
    passphrase that is not text, leaves the open to find the problem and report it as
    it always does.
    """
    try:
        sealed = parse_key_file(path.read_bytes(), path)
        secret = _passphrase_bytes(passphrase)
    except (OSError, KeyUnavailableError, InvalidInputError):
        return
    inputs = (secret, sealed.salt, sealed.n, sealed.r, sealed.p)
    if inputs in _AHEAD:
        return
    derivation = _Derivation(*inputs)
    _AHEAD[inputs] = derivation
    derivation.start()


def _passphrase_bytes(passphrase: str) -> bytes:
    try:
        return passphrase.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInputError(
            "passphrase", "is not valid UTF-8 text (it holds undecodable bytes)"
        ) from None


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")
