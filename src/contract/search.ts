export const MAX_SEARCH_LENGTH = 200
export const MAX_SEARCH_WORDS = 8

/** A `q` that cannot be searched for. */
export class SearchError extends Error {
  override name = 'SearchError'
}

/**
 * The words of a search (`q`), as the stores split names: runs of letters and digits, anything else
 * between them; case and accents are folded by each store (SQLite's unicode61 tokenizer, PostgreSQL's
 * unaccent and ICU lower case). Throws SearchError past the limits or when no word is left.
 */
export function searchWords (q: string): string[] {
  if ([...q].length > MAX_SEARCH_LENGTH) throw new SearchError(`at most ${MAX_SEARCH_LENGTH} characters are allowed`)
  const words = q.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '')
  if (words.length === 0) throw new SearchError('has no word to search for (letters or digits)')
  if (words.length > MAX_SEARCH_WORDS) throw new SearchError(`has ${words.length} words; at most ${MAX_SEARCH_WORDS} are allowed`)
  return words
}

/** A word folded as the stores fold them (case, and accents by their decomposition). */
export const foldWord = (word: string) => word.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()

/**
 * Whether a name matches a search: each word starts a word of the name, folded (the rule both stores'
 * full-text indexes implement).
 */
export function nameMatcher (words: string[]): (name: string) => boolean {
  const folded = words.map(foldWord)
  return (name) => {
    const nameWords = foldWord(name).split(/[^\p{L}\p{N}]+/u)
    return folded.every((word) => nameWords.some((nameWord) => nameWord.startsWith(word)))
  }
}
