/** The bounds of a signed 64-bit id, exactly (as bigints: doubles cannot hold them). */
export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n
