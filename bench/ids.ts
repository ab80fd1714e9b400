/** Unique plant ids across every run of one harness invocation; `ids.next` is read around measured runs. */
export const ids = { next: 10_000_000 }
