"""Item stacks inside block entities and entities (chest slots, a lectern's book, an item frame's item), upgraded to
the shape Minecraft 1.21.5 and later read.

Two changes matter. 1.20.5 replaced an item's ``Count`` and free-form ``tag`` with ``count`` and typed
``components``; the tag keys most builds carry are rewritten here (damage, names and lore, dye colour, enchantments,
books, potions, player-head owners, block states, shulker-box contents, custom model data, repair cost,
unbreakable), other vanilla keys are left out and counted, and keys of no vanilla meaning go to
``minecraft:custom_data`` as the game's own upgrade puts them. 1.21.5 then made texts NBT (names, lore, book
pages) and flattened a few components (enchantment levels, dye colour, unbreakable); components it does not know
to be unchanged are kept as written and counted. Items from before 1.13 (numeric ids and damage values) cannot be
named in today's ids: they are left out and counted.
"""

from __future__ import annotations

from mcb.blocks.releases import KNOWN_RELEASES
from mcb.schematics.extras_text import TEXT_AS_NBT, Tally, text_from_json, texts
from mcb.schematics.nbt import (
    TAG_COMPOUND,
    TAG_FLOAT,
    TAG_STRING,
    Byte,
    Compound,
    Float,
    Int,
    IntArray,
    List,
    String,
)

COMPONENTS = KNOWN_RELEASES["1.20.5"]
FLATTENING = KNOWN_RELEASES["1.13"]

# Vanilla tag keys of 1.13-1.20.4 with no rule here: left out (counted), never hidden in custom_data.
_NOT_CONVERTED = frozenset(
    {
        "HideFlags",
        "AttributeModifiers",
        "CanDestroy",
        "CanPlaceOn",
        "EntityTag",
        "Fireworks",
        "Explosion",
        "Trim",
        "Decorations",
        "map",
        "map_scale_direction",
        "map_to_lock",
        "LodestonePos",
        "LodestoneDimension",
        "LodestoneTracked",
        "Items",
        "ChargedProjectiles",
        "Charged",
        "Recipes",
        "Effects",
        "effects",
        "BucketVariantTag",
        "instrument",
        "DebugProperty",
        "CustomPotionEffects",
        "custom_potion_effects",
        "filtered_pages",
        "filtered_title",
    }
)
_BOOK_KEYS = ("pages", "title", "author", "generation", "resolved")
# Components whose shape 1.21.5 did not change (a 1.20.5-1.21.4 item keeps them as they are, uncounted).
_UNCHANGED = frozenset(
    {
        "damage",
        "max_damage",
        "max_stack_size",
        "repair_cost",
        "rarity",
        "custom_data",
        "block_state",
        "block_entity_data",
        "profile",
        "potion_contents",
        "enchantment_glint_override",
        "writable_book_content",
        "map_id",
        "ominous_bottle_amplifier",
        "note_block_sound",
        "base_color",
        "pot_decorations",
        "recipes",
        "lock",
        "container_loot",
    }
)


class ItemUpgrade:
    """Upgrades item stacks of data read as DataVersion ``since``; counts go to ``tally``."""

    def __init__(self, since: int, tally: Tally):
        self.since, self.tally = since, tally

    def item(self, item):
        """The upgraded stack, or None when it is empty or cannot be named in today's ids."""
        if not isinstance(item, dict):
            return item
        if self.since < FLATTENING:
            self.tally.lost("items from before Minecraft 1.13 (numeric ids and damage values)")
            return None
        if "count" not in item and ("Count" in item or "tag" in item):
            return self._from_tag(item)
        if self.since < TEXT_AS_NBT and isinstance(item.get("components"), dict):
            item = Compound(item)
            item["components"] = self._components_1_21_5(item["components"])
        return item

    def items(self, values) -> List:
        """A list of stacks (``Items``), empty and unnameable ones left out."""
        kept = [up for up in (self.item(v) for v in values) if up is not None]
        return List(kept, TAG_COMPOUND)

    # -- 1.20.5: Count and tag ------------------------------------------------------------------------------
    def _from_tag(self, item) -> Compound | None:
        ident = str(item.get("id", ""))
        ident = ident if ":" in ident else f"minecraft:{ident}"
        count = int(item.get("Count", 1))
        if ident == "minecraft:air" or count <= 0:
            return None
        out = Compound()
        if "Slot" in item:
            out["Slot"] = item["Slot"]
        out["id"], out["count"] = String(ident), Int(count)
        tag = item.get("tag")
        if isinstance(tag, dict) and tag:
            components = self._components_from_tag(tag, ident)
            if components:
                out["components"] = components
        self.tally.did("items from Count and tag into count and components (Minecraft 1.20.5)")
        return out

    def _components_from_tag(self, tag, ident: str) -> Compound:
        out, custom = Compound(), Compound()
        book = ident in ("minecraft:written_book", "minecraft:writable_book")
        if book:
            self._book(tag, ident, out)
        for key, value in tag.items():
            if book and key in _BOOK_KEYS:
                continue
            rule = _TAG_RULES.get(key)
            if rule is not None:
                rule(self, value, out)
            elif key in _NOT_CONVERTED:
                self.tally.lost(f"item data {key} (no rule for its 1.20.5 component)")
            else:
                custom[key] = value
        if custom:
            out["minecraft:custom_data"] = custom
            self.tally.did("item data of no vanilla meaning into minecraft:custom_data")
        return out

    def _damage(self, value, out) -> None:
        if int(value):
            out["minecraft:damage"] = Int(int(value))

    def _repair_cost(self, value, out) -> None:
        if int(value):
            out["minecraft:repair_cost"] = Int(int(value))

    def _unbreakable(self, value, out) -> None:
        if int(value):
            out["minecraft:unbreakable"] = Compound()

    def _model(self, value, out) -> None:
        out["minecraft:custom_model_data"] = Compound(floats=List([Float(float(value))], TAG_FLOAT))

    def _display(self, value, out) -> None:
        for key, field in value.items():
            if key == "Name":
                out["minecraft:custom_name"] = text_from_json(field, self.tally)
            elif key == "Lore":
                out["minecraft:lore"] = texts([text_from_json(line, self.tally) for line in field])
            elif key == "color":
                out["minecraft:dyed_color"] = Int(int(field))
            else:
                self.tally.lost(f"item data display.{key} (no rule for its 1.20.5 component)")

    def _enchantments(self, value, out, name: str = "minecraft:enchantments") -> None:
        if not value:  # an empty list was the way to make an item glint
            out["minecraft:enchantment_glint_override"] = Byte(1)
            return
        levels = Compound()
        for entry in value:
            ident = entry.get("id") if isinstance(entry, dict) else None
            if not isinstance(ident, str):
                self.tally.lost("enchantments named by number (before Minecraft 1.13)")
                continue
            levels[ident if ":" in ident else f"minecraft:{ident}"] = Int(int(entry.get("lvl", 1)))
        if levels:
            out[name] = levels

    def _stored(self, value, out) -> None:
        self._enchantments(value, out, "minecraft:stored_enchantments")

    def _potion(self, value, out) -> None:
        contents = out.setdefault("minecraft:potion_contents", Compound())
        contents["potion"] = String(str(value))

    def _potion_colour(self, value, out) -> None:
        contents = out.setdefault("minecraft:potion_contents", Compound())
        contents["custom_color"] = Int(int(value))

    def _block_state(self, value, out) -> None:
        out["minecraft:block_state"] = Compound((k, String(str(v))) for k, v in value.items())

    def _owner(self, value, out) -> None:
        out["minecraft:profile"] = profile(value)

    def _block_entity(self, value, out) -> None:
        for key, field in value.items():
            if key == "Items":
                out["minecraft:container"] = self._container(field)
            else:
                self.tally.lost(f"item data BlockEntityTag.{key} (no rule for its 1.20.5 component)")

    def _container(self, values) -> List:
        slots = []
        for entry in values:
            slot = int(entry.get("Slot", 0)) if isinstance(entry, dict) else 0
            stack = self.item(Compound((k, v) for k, v in entry.items() if k != "Slot"))
            if stack is not None:
                slots.append(Compound(slot=Int(slot), item=stack))
        return List(slots, TAG_COMPOUND)

    def _book(self, tag, ident: str, out) -> None:
        pages = tag.get("pages")
        if ident == "minecraft:writable_book":
            if pages:
                out["minecraft:writable_book_content"] = Compound(
                    pages=List([String(str(p)) for p in pages], TAG_STRING)
                )
            return
        content = Compound(title=String(str(tag.get("title", ""))), author=String(str(tag.get("author", ""))))
        if int(tag.get("generation", 0)):
            content["generation"] = Int(int(tag["generation"]))
        if int(tag.get("resolved", 0)):
            content["resolved"] = Byte(1)
        if pages:
            content["pages"] = texts([text_from_json(p, self.tally) for p in pages])
        out["minecraft:written_book_content"] = content

    # -- 1.21.5: texts as NBT and flatter components ---------------------------------------------------------
    def _components_1_21_5(self, components) -> Compound:
        out = Compound()
        for name, value in components.items():
            short = str(name).removeprefix("minecraft:")
            if short in ("custom_name", "item_name"):
                out[name] = text_from_json(value, self.tally)
            elif short == "lore":
                out[name] = texts([text_from_json(line, self.tally) for line in value])
            elif short in ("enchantments", "stored_enchantments", "dyed_color", "unbreakable") and isinstance(
                value, dict
            ):
                out[name] = self._flattened(short, value)
            elif short == "written_book_content" and isinstance(value, dict):
                out[name] = self._book_1_21_5(value)
            elif short == "container":
                slots = ((entry.get("slot", Int(0)), self.item(entry.get("item"))) for entry in value)
                out[name] = List([Compound(slot=s, item=i) for s, i in slots if i is not None], TAG_COMPOUND)
            else:
                out[name] = value
                if short not in _UNCHANGED:
                    self.tally.kept(f"item component {name} (no rule for its 1.21.5 shape)")
        return out

    def _flattened(self, short: str, value):
        if value.get("show_in_tooltip") is not None and not int(value["show_in_tooltip"]):
            self.tally.lost(f"hidden tooltips of item component minecraft:{short}")
        if short == "dyed_color":
            return Int(int(value.get("rgb", 0)))
        if short == "unbreakable":
            return Compound()
        return value["levels"] if "levels" in value else value

    def _book_1_21_5(self, value) -> Compound:
        out = Compound(value)
        pages = value.get("pages")
        if pages:
            out["pages"] = texts(
                [text_from_json(p.get("raw", "") if isinstance(p, dict) else p, self.tally) for p in pages]
            )
        return out


_TAG_RULES = {
    "Damage": ItemUpgrade._damage,
    "RepairCost": ItemUpgrade._repair_cost,
    "Unbreakable": ItemUpgrade._unbreakable,
    "CustomModelData": ItemUpgrade._model,
    "display": ItemUpgrade._display,
    "Enchantments": ItemUpgrade._enchantments,
    "StoredEnchantments": ItemUpgrade._stored,
    "Potion": ItemUpgrade._potion,
    "CustomPotionColor": ItemUpgrade._potion_colour,
    "BlockStateTag": ItemUpgrade._block_state,
    "SkullOwner": ItemUpgrade._owner,
    "BlockEntityTag": ItemUpgrade._block_entity,
}


def profile(owner) -> Compound:
    """A player head's owner (``SkullOwner``: a name, or a compound with ``Id``/``Name``/``Properties``) as the
    ``profile`` of 1.20.5 and later."""
    if not isinstance(owner, dict):
        return Compound(name=String(str(owner)))
    out = Compound()
    ident = owner.get("Id")
    if isinstance(ident, str):  # before 1.16 a UUID was a string
        ident = _uuid_ints(ident)
    if ident is not None and len(ident) == 4:
        out["id"] = IntArray(int(v) for v in ident)
    if "Name" in owner:
        out["name"] = String(str(owner["Name"]))
    properties = []
    for name, values in (owner.get("Properties") or {}).items():
        for value in values:
            entry = Compound(name=String(str(name)), value=String(str(value.get("Value", ""))))
            if "Signature" in value:
                entry["signature"] = String(str(value["Signature"]))
            properties.append(entry)
    if properties:
        out["properties"] = List(properties, TAG_COMPOUND)
    return out


def _uuid_ints(text: str) -> tuple[int, ...] | None:
    import uuid

    try:
        number = uuid.UUID(text).int
    except ValueError:
        return None
    words = [(number >> shift) & 0xFFFFFFFF for shift in (96, 64, 32, 0)]
    return tuple(w - (1 << 32) if w >= 1 << 31 else w for w in words)
