/** An effective-date window compiled to milliseconds; NaN stands for an open bound. */
export interface Window {
  start: number;
  end: number;
}

export function windowOf(start: string | null | undefined, end: string | null | undefined): Window {
  return { start: start ? Date.parse(start) : Number.NaN, end: end ? Date.parse(end) : Number.NaN };
}

/** Whether `at` (ms) lies in the window, both bounds included. */
export function inWindow(window: Window, at: number): boolean {
  return !(window.start > at) && !(window.end < at);
}
