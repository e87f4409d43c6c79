import { secureHeaders } from 'hono/secure-headers';

/**
 * The headers every answer carries (hono's `secureHeaders`): the pages load scripts, styles and
 * event streams from this server only and run no inline script (`Content-Security-Policy`); no other
 * site may frame them (`frame-ancestors 'none'`, `X-Frame-Options: DENY`), so a decision cannot be
 * clicked through a page laid over them; a browser never guesses a type (`nosniff`), and no
 * address with a token leaks as a referrer.
 */
export const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    baseUri: ["'none'"],
    objectSrc: ["'none'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: 'DENY',
  xContentTypeOptions: 'nosniff',
  referrerPolicy: 'no-referrer',
});

/** The inbox's icon (`/favicon.ico`, as an SVG): a wave. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f4e79"/><path d="M4 20c4-8 8-8 12 0s8 8 12 0" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>`;
