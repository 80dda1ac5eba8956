/** One field that differs between two JSON values, by its dotted path. */
export interface Change {
  path: string;
  before: unknown;
  after: unknown;
}

/** Every leaf that differs between `before` and `after` (arrays compared by index). */
export function diff(before: unknown, after: unknown, path = ''): Change[] {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null;
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) =>
      diff(before[key], after[key], path === '' ? key : `${path}.${key}`),
    );
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ path, before, after }];
}

export function show(value: unknown): string {
  return value === undefined ? '—' : JSON.stringify(value);
}
