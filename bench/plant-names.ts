/** Seeded unsigned 32-bit numbers (mulberry32): the same plants on every run. */
export function seededNumbers (seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = Math.imul(state ^ (state >>> 15), 1 | state)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return (x ^ (x >>> 14)) >>> 0
  }
}

const ADJECTIVES = ['Boston', 'Sword', 'Golden', 'Silver', 'Dwarf', 'Giant', 'Weeping', 'Creeping', 'Climbing', 'Royal', 'Japanese', 'Chinese', 'African', 'Mexican', 'Alpine', 'Desert', 'Swamp', 'Rock', 'Water', 'Snow']
const NOUNS = ['fern', 'palm', 'ivy', 'fig', 'lily', 'orchid', 'cactus', 'aloe', 'maple', 'pine', 'moss', 'rose', 'daisy', 'tulip', 'sage', 'mint', 'basil', 'thyme', 'laurel', 'yucca']

/** "Adjective noun N", as people name plants, its words drawn from `next`; capitalised, so below any lower-case name. */
export const plantName = (next: () => number, n: number) => `${ADJECTIVES[next() % ADJECTIVES.length]} ${NOUNS[next() % NOUNS.length]} ${n}`
