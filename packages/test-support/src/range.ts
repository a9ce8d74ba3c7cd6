/** `n` consecutive integers from `from`: offsets, message numbers. */
export const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);
