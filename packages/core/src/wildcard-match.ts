/**
 * Classic greedy wildcard matching, without recursion and without regular expressions: `patternLength`
 * pattern items against `textLength` text items, where `isStar(p)` marks an item that spans zero or more
 * text items and `matchesOne(p, t)` tests every other item against exactly one text item.
 *
 * On a mismatch, the most recent star swallows one more text item and matching resumes right after it.
 * Retrying from the latest star only suffices because the items between two stars form a fixed-length
 * block, and placing that block as early as possible never rules out a match. Each star restart moves
 * the resume point forward, so the work is O(pattern × text) at worst, never exponential however the
 * stars are arranged.
 */
export function wildcardMatches(
  patternLength: number,
  textLength: number,
  isStar: (patternIndex: number) => boolean,
  matchesOne: (patternIndex: number, textIndex: number) => boolean,
): boolean {
  let patternIndex = 0;
  let textIndex = 0;
  let lastStarIndex = -1;
  let resumeTextIndex = 0;
  while (textIndex < textLength) {
    if (patternIndex < patternLength) {
      if (isStar(patternIndex)) {
        lastStarIndex = patternIndex;
        resumeTextIndex = textIndex;
        patternIndex++;
        continue;
      }
      if (matchesOne(patternIndex, textIndex)) {
        patternIndex++;
        textIndex++;
        continue;
      }
    }
    if (lastStarIndex < 0) {
      return false;
    }
    patternIndex = lastStarIndex + 1;
    resumeTextIndex++;
    textIndex = resumeTextIndex;
  }
  // Text exhausted: only trailing stars (spanning zero items) may remain.
  while (patternIndex < patternLength && isStar(patternIndex)) {
    patternIndex++;
  }
  return patternIndex === patternLength;
}
