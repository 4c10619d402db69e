"""Block-entity and entity data as a command gives it to Minecraft 26.2: a file's data without its own position
and identity, upgraded where the file is older.

    upgrade = ExtrasUpgrade(since=3120)        # the DataVersion the file's data is read as
    data = upgrade.block_entity("minecraft:sign", be.data)   # {front_text: {messages: ["Four", ...]}}
    data = upgrade.entity("minecraft:armor_stand", entity.data)
    upgrade.tally.to_json()                    # what changed, what was left out or kept as written, with counts

Rules by release (each counted in the tally): 1.20 signs (``Text1``..``Text4``, ``Color``, ``GlowingText`` into
``front_text``), 1.20.2 beacon effects (numbers into ids), 1.20.5 items (:mod:`.extras_items`), player-head
owners (``SkullOwner`` into ``profile``) and banner patterns (codes into ids), 1.21 painting ``facing``, 1.21.5
texts as NBT (:mod:`.extras_text`) and mob equipment (``ArmorItems``/``HandItems`` into ``equipment``). A block
entity or entity of a kind no rule covers is kept as written and counted when the file is older than the target.
"""

from __future__ import annotations

from mcb.blocks.releases import KNOWN_RELEASES
from mcb.schematics.extras_items import COMPONENTS, FLATTENING, ItemUpgrade, profile
from mcb.schematics.extras_text import TEXT_AS_NBT, Tally, text_from_json, texts
from mcb.schematics.nbt import TAG_COMPOUND, Compound, Float, List, String, tag_type

SIGN_SIDES = KNOWN_RELEASES["1.20"]
BEACON_IDS = KNOWN_RELEASES["1.20.2"]

# Where a block entity or an entity keeps its own position and identity: a command gives those itself.
_BLOCK_ENTITY_OWN = frozenset({"x", "y", "z", "id", "Id", "keepPacked"})
_ENTITY_OWN = frozenset(
    {
        "UUID",
        "UUIDMost",
        "UUIDLeast",
        "Pos",
        "id",
        "Id",
        "WorldUUIDMost",
        "WorldUUIDLeast",
        "Dimension",
        "TileX",
        "TileY",
        "TileZ",
        "block_pos",
        "Paper.Origin",
        "Paper.OriginWorld",
    }
)
# Kinds whose data every rule here covers (their other fields kept their shape up to 26.2).
_KNOWN_BLOCK_ENTITIES = frozenset(
    "barrel banner beacon bed beehive bell blast_furnace brewing_stand campfire chest chiseled_bookshelf comparator "
    "conduit daylight_detector decorated_pot dispenser dropper enchanting_table end_portal ender_chest furnace "
    "hanging_sign hopper jukebox lectern shulker_box sign skull smoker trapped_chest".split()
)
_KNOWN_ENTITIES = frozenset(
    "armor_stand item_frame glow_item_frame painting leash_knot item minecart chest_minecart hopper_minecart "
    "furnace_minecart tnt_minecart".split()
)
_ITEM_LISTS = ("Items", "Inventory", "ArmorItems", "HandItems")
_ITEM_FIELDS = ("Book", "RecordItem", "item", "Item", "SaddleItem", "DecorItem", "ArmorItem", "body_armor_item")
_BEACON_EFFECTS = {1: "speed", 3: "haste", 5: "strength", 8: "jump_boost", 10: "regeneration", 11: "resistance"}
_DYES = (
    "white orange magenta light_blue yellow lime pink gray light_gray cyan purple blue brown green red black".split()
)
_PATTERNS = dict(
    pair.split("=")
    for pair in (
        "b=base bl=square_bottom_left br=square_bottom_right tl=square_top_left tr=square_top_right "
        "bs=stripe_bottom ts=stripe_top ls=stripe_left rs=stripe_right cs=stripe_center ms=stripe_middle "
        "drs=stripe_downright dls=stripe_downleft ss=small_stripes cr=cross sc=straight_cross bt=triangle_bottom "
        "tt=triangle_top bts=triangles_bottom tts=triangles_top ld=diagonal_left rd=diagonal_up_right "
        "lud=diagonal_up_left rud=diagonal_right mc=circle mr=rhombus vh=half_vertical hh=half_horizontal "
        "vhr=half_vertical_right hhb=half_horizontal_bottom bo=border cbo=curly_border gra=gradient "
        "gru=gradient_up bri=bricks glb=globe cre=creeper sku=skull flo=flower moj=mojang pig=piglin flw=flow "
        "gus=guster"
    ).split()
)
_EQUIPMENT = {"ArmorItems": ("feet", "legs", "chest", "head"), "HandItems": ("mainhand", "offhand")}
_DROP_CHANCES = {"ArmorDropChances": _EQUIPMENT["ArmorItems"], "HandDropChances": _EQUIPMENT["HandItems"]}


class ExtrasUpgrade:
    """Data of a file read as DataVersion ``since``, for a target of DataVersion ``target``."""

    def __init__(self, since: int, target: int, tally: Tally | None = None):
        self.since, self.target = since, target
        self.tally = tally if tally is not None else Tally()
        self.items = ItemUpgrade(since, self.tally)

    @property
    def older(self) -> bool:
        return self.since < self.target

    def block_entity(self, ident: str, data) -> Compound:
        out = Compound((k, v) for k, v in (data or {}).items() if k not in _BLOCK_ENTITY_OWN)
        if not self.older:
            return out
        kind = ident.removeprefix("minecraft:")
        self._items_in(out)
        self._custom_name(out)
        if kind in ("sign", "hanging_sign"):
            self._sign(out)
        elif kind == "beacon":
            self._beacon(out)
        elif kind == "skull":
            self._skull(out)
        elif kind == "banner":
            self._banner(out)
        elif kind == "beehive":
            self._bees(out)
        if out.get("Lock"):  # 1.21.2 made a lock an item predicate
            self.tally.lost("container locks (Lock: a name; an item predicate since 1.21.2)")
            del out["Lock"]
        if kind not in _KNOWN_BLOCK_ENTITIES and not is_default(out):
            self.tally.kept(f"{ident} data (no upgrade rule for this kind)")
        return out

    def entity(self, ident: str, data) -> Compound:
        out = Compound((k, v) for k, v in (data or {}).items() if k not in _ENTITY_OWN)
        passengers = out.get("Passengers")
        if passengers:
            out["Passengers"] = List([self._passenger(p) for p in passengers], TAG_COMPOUND)
        if not self.older:
            return out
        kind = ident.removeprefix("minecraft:")
        self._items_in(out)
        self._custom_name(out)
        if self.since < TEXT_AS_NBT and ("ArmorItems" in out or "HandItems" in out):
            self._equipment(out)
        if kind == "painting":
            self._painting(out)
        for old, release in (("Attributes", COMPONENTS), ("ActiveEffects", BEACON_IDS)):
            if old in out and self.since < release:  # renamed, and their entries reshaped
                self.tally.lost(f"entity {old} (reshaped since; the game gives the defaults)")
                del out[old]
        if kind not in _KNOWN_ENTITIES:
            self.tally.kept(f"{ident} data (no upgrade rule for this kind)")
        return out

    def before_turn(self, ident: str, data):
        """What must change before the data is turned: an item frame of 1.12 or older faced one of four ways
        (``Facing`` 0-3: south, west, north, east); since 1.13 it may face six (0-5: down, up, north, south, west,
        east), and the turn reads it so."""
        if self.since >= FLATTENING or not ident.endswith("item_frame") or "Facing" not in (data or {}):
            return data
        data = Compound(data)
        data["Facing"] = type(data["Facing"])((3, 4, 2, 5)[int(data["Facing"]) % 4])
        self.tally.did("item frames from four facings into six (Minecraft 1.13)")
        return data

    def _passenger(self, passenger) -> Compound:
        ident = str(passenger.get("id", passenger.get("Id", "")))
        out = self.entity(ident, passenger)
        out["id"] = String(ident)
        return out

    # -- pieces ------------------------------------------------------------------------------------------------
    def _items_in(self, out) -> None:
        for key in _ITEM_LISTS:
            if isinstance(out.get(key), list):
                out[key] = self.items.items(out[key]) if key not in _EQUIPMENT else self._slots(out[key])
        for key in _ITEM_FIELDS:
            if isinstance(out.get(key), dict):
                stack = self.items.item(out[key])
                if stack is None:
                    del out[key]
                else:
                    out[key] = stack

    def _slots(self, values) -> List:
        """Armour and hand lists keep their places: an empty slot stays an empty compound."""
        return List([self.items.item(v) or Compound() if v else Compound() for v in values], TAG_COMPOUND)

    def _custom_name(self, out) -> None:
        if self.since < TEXT_AS_NBT and "CustomName" in out:
            out["CustomName"] = text_from_json(out["CustomName"], self.tally)

    def _sign(self, out) -> None:
        if "front_text" not in out and any(f"Text{i}" in out for i in range(1, 5)):
            front = Compound(
                messages=texts([text_from_json(out.pop(f"Text{i}", '""'), self.tally) for i in range(1, 5)])
            )
            color, glowing = out.pop("Color", None), out.pop("GlowingText", None)
            if color is not None:
                front["color"] = String(str(color))
            if glowing:
                front["has_glowing_text"] = glowing
            for i in range(1, 5):
                out.pop(f"FilteredText{i}", None)  # what a chat filter showed: the game rebuilds it
            out["front_text"] = front
            self.tally.did("signs from Text1-Text4 into front_text (Minecraft 1.20)")
            converted = True
        else:
            converted = False
        for side in ("front_text", "back_text"):
            face = out.get(side)
            if not isinstance(face, dict):
                continue
            face = out[side] = Compound(face)
            if self.since < TEXT_AS_NBT and not converted:
                for key in ("messages", "filtered_messages"):
                    if isinstance(face.get(key), list):
                        face[key] = texts([text_from_json(line, self.tally) for line in face[key]])
            if face.get("color") == "black":  # the default: a merge leaves the placed sign's own
                del face["color"]

    def _beacon(self, out) -> None:
        if self.since >= BEACON_IDS:
            return
        for old, new in (("Primary", "primary_effect"), ("Secondary", "secondary_effect")):
            if old not in out:
                continue
            number = int(out.pop(old))
            if number <= 0:
                continue
            if number in _BEACON_EFFECTS:
                out[new] = String(f"minecraft:{_BEACON_EFFECTS[number]}")
                self.tally.did("beacon effects from numbers into ids (Minecraft 1.20.2)")
            else:
                self.tally.lost(f"beacon effect number {number} (not a beacon effect)")

    def _skull(self, out) -> None:
        owner = out.pop("SkullOwner", None)
        if owner is None and out.get("ExtraType"):
            owner = out["ExtraType"]
        out.pop("ExtraType", None)
        if owner is not None and "profile" not in out:
            out["profile"] = profile(owner)
            self.tally.did("player heads from SkullOwner into profile (Minecraft 1.20.5)")

    def _banner(self, out) -> None:
        patterns = out.pop("Patterns", None)
        if not patterns:
            return
        if self.since < FLATTENING:
            self.tally.lost("banner patterns from before Minecraft 1.13", len(patterns))
            return
        converted = []
        for entry in patterns:
            code, colour = entry.get("Pattern"), entry.get("Color")
            if code in _PATTERNS and colour is not None and 0 <= int(colour) < len(_DYES):
                converted.append(
                    Compound(pattern=String(f"minecraft:{_PATTERNS[code]}"), color=String(_DYES[int(colour)]))
                )
            else:
                self.tally.lost(f"banner patterns of an unknown code ({code})")
        if converted:
            out["patterns"] = List(converted, TAG_COMPOUND)
            self.tally.did("banner patterns from codes into ids (Minecraft 1.20.5)", len(converted))

    def _bees(self, out) -> None:
        bees = out.pop("Bees", None)
        if bees and self.since < COMPONENTS:
            self.tally.lost("bees in hives (before Minecraft 1.20.5)", len(bees))
        elif bees:
            out["Bees"] = bees

    def _equipment(self, out) -> None:
        equipment = Compound(out.get("equipment") or {})
        for key, slots in _EQUIPMENT.items():
            for slot, stack in zip(slots, out.pop(key, ())):
                if stack:
                    equipment[slot] = stack
        for key in ("SaddleItem", "body_armor_item"):
            if key in out:
                equipment["saddle" if key == "SaddleItem" else "body"] = out.pop(key)
        chances = Compound()
        for key, slots in _DROP_CHANCES.items():
            for slot, chance in zip(slots, out.pop(key, ())):
                if abs(float(chance) - 0.085) > 1e-6:  # the default chance is left to the game
                    chances[slot] = Float(float(chance))
        if equipment:
            out["equipment"] = equipment
            self.tally.did("mob equipment from ArmorItems/HandItems into equipment (Minecraft 1.21.5)")
        if chances:
            out["drop_chances"] = chances

    def _painting(self, out) -> None:
        if "Motive" in out and "variant" not in out:
            out["variant"] = String(str(out.pop("Motive")))
            self.tally.did("paintings from Motive into variant (Minecraft 1.19)")
        if "Facing" in out and "facing" not in out:
            out["facing"] = out.pop("Facing")
            self.tally.did("paintings from Facing into facing (Minecraft 1.21)")


def is_default(value) -> bool:
    """True when a value holds nothing a freshly placed block lacks: zeros, empty strings, empty lists and
    compounds of such values (a chest with no items, a blank sign)."""
    kind = tag_type(value)
    if isinstance(value, dict):
        return all(is_default(v) for v in value.values())
    if isinstance(value, (list, tuple, bytes)) or kind in (7, 11, 12):
        return all(is_default(v) for v in value) if kind != 7 else not any(value)
    if isinstance(value, str):
        return value == ""
    if isinstance(value, (int, float)):
        return value == 0
    return False
