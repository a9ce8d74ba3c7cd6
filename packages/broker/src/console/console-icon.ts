/**
 * The console's icon, kept here rather than as a file beside its scripts: browsers ask for one on every page, and
 * without it each load logged a 404. The policy lets the page load images only from the broker (`img-src 'self'`),
 * so a `data:` URL would not do.
 */
export const CONSOLE_ICON = {
  contentType: 'image/svg+xml',
  body:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b3d91"/>' +
    '<path d="M3 12V4l2.5 4L8 4v8M10 12V8l1.5 2L13 8v4" fill="none" stroke="#fff" stroke-width="1.5" stroke-linejoin="round"/></svg>\n',
} as const;

/** The name the page links it by. */
export const CONSOLE_ICON_NAME = 'icon.svg';
