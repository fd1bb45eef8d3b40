// Anything shaped like local@domain.tld, anywhere in the query.
const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@.]+/;

// A run of digits joined by the separators people write phone numbers with,
// optionally led by + or an opening parenthesis: "+49 170 1234567",
// "(555) 123-4567", "0170-1234567". Letters end a run, so model numbers such
// as "iphone 15 pro" or "rtx 3080 ti 12gb" split into short runs.
const DIGIT_RUN = /[+(]?\d(?:[ ()./-]{0,2}\d)*/g;

// The shortest subscriber numbers in use have 7 digits. Longer runs (card
// numbers, account numbers) are at least as private, so there is no upper bound.
const MIN_PHONE_DIGITS = 7;

/**
 * Whether a query key looks like an e-mail address or a phone number, which
 * must never become a suggestion shown to every visitor of the shop.
 */
export function isPrivateQuery(key: string): boolean {
  if (EMAIL.test(key)) return true;
  for (const run of key.matchAll(DIGIT_RUN)) {
    if (countDigits(run[0]) >= MIN_PHONE_DIGITS) return true;
  }
  return false;
}

function countDigits(text: string): number {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) digits++;
  }
  return digits;
}
