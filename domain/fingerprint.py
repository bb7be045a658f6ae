"""A checkpoint people can compare by voice: ``#<size> · <five words>``.

The words are the first five bytes of the checkpoint's root, each read as an index into
the 256 words below (byte 0 is "acorn", byte 255 "zipper"), joined by single spaces. The
root is already a SHA-256 output, so its first bytes need no hashing again. Five words
are 40 bits: enough that two people at one table who read out the same size and words
saw the same log, unless a server spent about 2**40 hashes to forge a history for just
that comparison; the full root and its signature are what a program checks.

The browser's copy (web/static/witness-words.js) is kept equal to this one by a test.
"""

from __future__ import annotations

from diceledger.domain.checkpoint import Checkpoint
from diceledger.domain.signed_note import SignedNote

WORD_COUNT = 5
WORDS = tuple(
    """
    acorn adder amber anchor angel apple apron arrow ash aspen atlas axe badge baker
    bamboo banjo barley barrel basil beacon beard beaver bell berry bishop bison blade
    blossom boat bonfire boot bottle boulder bow bramble bread brick bridge bronze brook
    broom bucket bugle button cabin cactus camel candle canoe canyon carpet carrot
    castle cedar cellar chalk cherry chess chimney cider clock cloud clover cobra comet
    compass copper coral cotton cradle crane crow crown dagger daisy dancer desert
    dolphin donkey dragon drum eagle echo elbow elm ember falcon feather fern fiddle
    flag flute forest fossil fox frog garden garlic gecko ginger glacier goat goblet
    gold granite grape gravel guitar hammer harbor harp hawk hazel helmet heron hill
    honey horse iceberg igloo island ivory jacket jaguar jelly jewel jigsaw juniper
    kettle kiwi knight koala ladder lagoon lantern lemon leopard lily lion lizard locket
    lotus magnet mango maple marble meadow melon mirror mitten monkey moose needle nest
    nickel oak oasis ocean olive onion orange orchid otter owl oyster paddle palace
    panda parrot peach pebble pepper piano pigeon pillow pine pirate planet plum pocket
    pony poppy potato puzzle quarry quill rabbit radish raven reef ribbon river robin
    rocket rose ruby saddle salmon sandal saucer scarf shadow shell shield silver skate
    sleigh slipper snail sparrow spider spoon squid stable star statue storm sugar
    summit sunset swan sword tablet teapot temple thistle thunder tiger timber toast
    tomato torch tower trumpet tulip tunnel turnip valley velvet violin volcano wagon
    walnut walrus wand whale wheat whistle willow window wizard wolf yak yarn zebra
    zipper
    """.split()
)
SEPARATOR = " \u00b7 "  # a middle dot between spaces


def fingerprint_words(root: bytes) -> str:
    """Return the words of a checkpoint root: one per byte of its first five."""
    if len(root) < WORD_COUNT:
        raise ValueError(f"a root has at least {WORD_COUNT} bytes, not {len(root)}")
    return " ".join(WORDS[byte] for byte in root[:WORD_COUNT])


def checkpoint_label(size: int, root: bytes) -> str:
    """Return how a checkpoint is shown to people: ``#<size> · <words>``."""
    return f"#{size}{SEPARATOR}{fingerprint_words(root)}"


def note_label(note: str) -> str:
    """Return the label of a signed checkpoint note (read, not verified: for showing)."""
    checkpoint = Checkpoint.parse(SignedNote.parse(note).text)
    return checkpoint_label(checkpoint.size, checkpoint.root)
