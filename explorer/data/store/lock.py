"""One ``explorer embed`` at a time per store folder: :func:`lock_store`.

The lock is an OS lock (``fcntl.flock``) on ``<store>/.embed.lock``, so two processes racing
for it cannot both win, and it goes when its process dies, however it dies. The file holds the
owner's process id, host name and start time, for the refusal's message and for file systems
that refuse ``flock`` (then a recorded owner that still runs on this host, or runs on another
host, keeps the store; one that is gone is taken over). The file is removed on release.
The lock never follows a link and never truncates a file it did not make: a symbolic link, a
hard link, another user's file or anything but a lock record at its path is refused, untouched.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

from explorer.data.store.format import now

LOCK_FILE = ".embed.lock"
"""The lock's file name inside a store folder."""


@contextlib.contextmanager
def lock_store(folder: Path) -> Iterator[dict | None]:
    """Hold the embedding lock of the store ``folder`` (an existing folder) for the ``with``
    block; yields the record of an earlier owner that was gone without releasing it (a killed
    run) or ``None``. Raises ``ValueError`` naming the process that holds it."""
    fd, previous = _acquire(Path(folder) / LOCK_FILE)
    try:
        yield previous
    finally:
        with contextlib.suppress(OSError):
            os.unlink(Path(folder) / LOCK_FILE)  # while still held: see _acquire
        os.close(fd)


def _acquire(path: Path) -> tuple[int, dict | None]:
    import fcntl

    for _ in range(100):
        try:
            fd = _open(path)
        except FileNotFoundError:  # a releasing owner removed it between our two opens
            continue
        try:
            owner = _read(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ValueError(_busy(path.parent, owner)) from None
            except OSError as error:  # a file system without flock (some network mounts)
                if error.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
                    raise
                if owner is not None and _alive(owner):
                    raise ValueError(_busy(path.parent, owner)) from None
            # A releasing owner unlinks the file before closing it: a lock won on that
            # unlinked file guards nothing, so try again on the file now at the path.
            if os.fstat(fd).st_ino != _inode(path):
                os.close(fd)
                continue
            owner = _read(fd)
            if owner is None and os.fstat(fd).st_size:  # nobody writes it while we hold it
                raise ValueError(_foreign(path, "it holds something other than a lock record"))
            record = {"pid": os.getpid(), "host": socket.gethostname(), "since": now()}
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(record).encode(), 0)
            os.fsync(fd)
            return fd, owner
        except BaseException:
            os.close(fd)
            raise
    raise ValueError(f"Could not take the lock of {path.parent}: it kept changing hands.")


_RECORD_BYTES = 4096
"""More than any lock record takes: a larger file at the lock's path is not one."""


def _open(path: Path) -> int:
    """A descriptor of the lock file at ``path``: a new one (``O_EXCL``), else the one there when
    it is a lock file of ours (a regular file of this user, with no other name, small enough).
    Links are never followed; anything else at the path is refused, left as it is."""
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        pass
    mode = path.lstat().st_mode  # FileNotFoundError: the caller tries again
    if stat.S_ISLNK(mode):
        raise ValueError(_foreign(path, "it is a symbolic link"))
    if not stat.S_ISREG(mode):
        raise ValueError(_foreign(path, "it is not a regular file"))
    try:  # O_NONBLOCK: a FIFO swapped in since the lstat cannot hang the open
        fd = os.open(path, flags | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == errno.ELOOP:  # swapped for a link since the lstat
            raise ValueError(_foreign(path, "it is a symbolic link")) from None
        raise
    info = os.fstat(fd)
    why = None
    if not stat.S_ISREG(info.st_mode):
        why = "it is not a regular file"
    elif info.st_uid != os.geteuid():
        why = "it belongs to another user"
    elif info.st_nlink != 1:
        why = "it is a hard link: the same file has other names"
    elif info.st_size > _RECORD_BYTES:
        why = "it is larger than a lock record"
    if why is not None:
        os.close(fd)
        raise ValueError(_foreign(path, why))
    return fd


def _foreign(path: Path, why: str) -> str:
    return (
        f"{path} is not a lock file of `explorer embed` ({why}), so it was left untouched and "
        f"nothing was written. Check what it is and remove it, then run the same command again."
    )


def _inode(path: Path) -> int | None:
    try:
        return path.lstat().st_ino
    except FileNotFoundError:
        return None


def _read(fd: int) -> dict | None:
    """The recorded owner, or ``None`` when the file is empty or not a record."""
    try:
        record = json.loads(os.pread(fd, 4096, 0) or b"null")
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("pid"), int):
        return None
    return record


def _alive(owner: dict) -> bool:
    if owner.get("host") != socket.gethostname():
        return True  # cannot tell from here: keep it
    try:
        os.kill(owner["pid"], 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _busy(folder: Path, owner: dict | None) -> str:
    if owner is None:
        who = "another process"
    else:
        host = "" if owner.get("host") == socket.gethostname() else f" on {owner.get('host')}"
        who = f"process {owner['pid']}{host} (since {owner.get('since', '?')})"
    return (
        f"{folder} is being written by another `explorer embed`, {who}: two runs on one "
        "--out would mix their rows. Wait for it to finish (or stop it), then run the same "
        f"command again to resume; or give another --out folder. If no such process runs, "
        f"delete {folder / LOCK_FILE}."
    )
