"""Lazily decoded compounds for block-entity/entity data read in skim mode.

A model read keeps the nested containers of block-entity data as raw bytes (``Skipped.raw``); they are decoded the
first time anything reads them, and a writer copies untouched ones byte for byte.
"""

from __future__ import annotations

from mcb.schematics.nbt import Compound
from mcb.schematics.nbt_skim import Skipped


class LazyCompound(Compound):
    """A compound whose skimmed containers (``Skipped`` with raw bytes) decode on first read access.

    Either some values are ``Skipped`` (v2 inline block-entity fields), or the whole compound is one
    (``LazyCompound.of(skipped)``: a v3 ``Data`` compound). Any read (``[]``, ``get``, ``in``, ``len``, iteration,
    ``items``, ``dict(...)``, ``Compound(...)``) decodes first, so callers only ever see ordinary tags; writers copy
    an untouched one byte for byte (:func:`raw_payload`, :func:`raw_items`).
    """

    __slots__ = ("_pending", "_whole")

    def __init__(self, items=()):
        super().__init__(items)
        self._whole = None
        self._pending = any(isinstance(v, Skipped) for v in dict.values(self))

    @classmethod
    def pending(cls, items) -> LazyCompound:
        """A lazy compound of ``items`` that the caller knows hold skimmed containers (skips the scan)."""
        lazy = cls.__new__(cls)
        dict.update(lazy, items)
        lazy._whole, lazy._pending = None, True
        return lazy

    @classmethod
    def of(cls, skipped: Skipped) -> LazyCompound:
        lazy = cls()
        lazy._whole, lazy._pending = skipped, True
        return lazy

    def _decode(self) -> None:
        if self._pending:
            self._pending = False
            if self._whole is not None:
                dict.update(self, self._whole.decode())
                self._whole = None
            for key, value in list(dict.items(self)):
                if isinstance(value, Skipped):
                    dict.__setitem__(self, key, value.decode())

    def __getitem__(self, key):
        self._decode()
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        self._decode()
        return dict.get(self, key, default)

    def __contains__(self, key):
        self._decode()
        return dict.__contains__(self, key)

    def __len__(self):
        self._decode()
        return dict.__len__(self)

    def __iter__(self):  # also makes dict(x) / Compound(x) / update(x) go through __getitem__
        self._decode()
        return dict.__iter__(self)

    def keys(self):
        self._decode()
        return dict.keys(self)

    def items(self):
        self._decode()
        return dict.items(self)

    def values(self):
        self._decode()
        return dict.values(self)

    def pop(self, *args):
        self._decode()
        return dict.pop(self, *args)

    def copy(self):
        self._decode()
        return Compound(dict.items(self))

    def __eq__(self, other):
        self._decode()
        if isinstance(other, LazyCompound):  # dict.__eq__ reads the other dict's storage as it is
            other._decode()
        return dict.__eq__(self, other)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    def __repr__(self) -> str:
        self._decode()
        return dict.__repr__(self)


def raw_payload(compound) -> bytes | None:
    """The encoded payload of an untouched whole-raw LazyCompound, else None."""
    if isinstance(compound, LazyCompound) and compound._pending and compound._whole is not None:
        return compound._whole.raw
    return None


def raw_items(compound):
    """(name, value) pairs without decoding: skimmed containers stay ``Skipped`` (with raw bytes)."""
    if isinstance(compound, LazyCompound) and compound._pending and compound._whole is not None:
        compound._decode()
    return dict.items(compound)


def shallow_copy(compound):
    """A new compound with the same values, without decoding a lazy one (each block entity that shares a template's
    contents gets its own dict; the values themselves, skimmed containers included, are immutable or shared as the
    reader shared them)."""
    if isinstance(compound, LazyCompound):
        copy = LazyCompound.__new__(LazyCompound)
        dict.update(copy, dict.items(compound))
        copy._whole, copy._pending = compound._whole, compound._pending
        return copy
    if compound is None:
        return None
    return Compound(compound) if isinstance(compound, dict) else compound
