/** A database URL fit to print or log: its password hidden. */
export function displayUrl (url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]+:)[^@]*@/, '$1***@')
}
