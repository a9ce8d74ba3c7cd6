import { escapeHtml } from './escape-html';

/** The console's answer where it is not served: a page saying why, and where to read how to turn it on. */
export function notFoundPage(reason: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>MMMQ console unavailable</title></head>
<body>
<main>
<h1>MMMQ console unavailable</h1>
<p>${escapeHtml(reason)}</p>
<p>See the Console section of docs/operations.md in the MMMQ repository.</p>
</main>
</body>
</html>
`;
}
