/** One scrape of a Prometheus endpoint: the sum of the samples of `name` whose labels include `labels`. */
export interface Scrape {
  text: string;
  value(name: string, labels?: Record<string, string>): number;
  has(name: string): boolean;
}

/** Scrapes `http://<address>/metrics`; undefined while nothing answers there. */
export async function scrape(address: string): Promise<Scrape | undefined> {
  let text: string;
  try {
    const response = await fetch(`http://${address}/metrics`);
    if (!response.ok) return undefined;
    text = await response.text();
  } catch {
    return undefined;
  }
  const samples = text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) return undefined;
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1], labels, value: Number(match[3]) };
    })
    .filter((sample) => sample !== undefined);
  return {
    text,
    value: (name, labels = {}) =>
      samples
        .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
        .reduce((sum, s) => sum + s.value, 0),
    has: (name) => samples.some((s) => s.name === name),
  };
}
