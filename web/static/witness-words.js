// The words of a checkpoint, as domain/fingerprint.py defines them (and a test keeps equal):
// the first five bytes of the root, each an index into these 256 words; shown as
// `#<size> · <words>` so that people at one table can compare what they saw by voice.

export const WORD_COUNT = 5;
export const WORDS = `
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
`.trim().split(/\s+/);

/** Return the words of a checkpoint root (bytes). */
export function fingerprintWords(root) {
  return Array.from(root.slice(0, WORD_COUNT), (byte) => WORDS[byte]).join(" ");
}

/** Return a checkpoint as people see it: `#<size> · <words>`. */
export function checkpointLabel(size, root) {
  return `#${size} \u00b7 ${fingerprintWords(root)}`;
}
