/** The prose at the top of docs/reliability.md; the figures below it are generated. */
export const RELIABILITY_INTRO = `
TODO
`;
