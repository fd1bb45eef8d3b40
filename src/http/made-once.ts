/** `make`'s answer, made at the first call and kept for the next. */
export function madeOnce<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
