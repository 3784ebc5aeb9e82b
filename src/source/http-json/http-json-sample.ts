import { singleQuoted as q } from '../../text/single-quoted.ts';
import type { SourceSample } from '../source-sample.ts';
import { readJsonSample, type JsonSample } from './read-json-sample.ts';

/**
 * `idem new --json URL_OR_FILE`: the sample (see `readJsonSample`), and an `httpJsonSource` of its
 * path, paging and items, a fixture of its first items in the body's shape, and a test whose msw
 * handlers serve the fixture (a page at a time for page-number paging), run for a date.
 */
export async function sampleHttpJson(location: string): Promise<SourceSample> {
  const sample = await readJsonSample(location);
  const { path, paging, itemsProperty, baseUrl } = sample;
  return {
    name: location,
    fields: sample.fields,
    rows: sample.items,
    render(plan) {
      const kept = sample.items.slice(0, plan.fixtureRows);
      const fixture = `fixtures/${plan.name}/sample.json`;
      const sources = `IDEM_SOURCES='{"${plan.name}":{"url":"${baseUrl ?? 'https://…'}"}}'`;
      return {
        builder: 'httpJsonSource',
        declaration: [
          'httpJsonSource({',
          `    path: ${q(path)},`,
          `    paging: { ${Object.entries(paging).map(([k, v]) => `${k}: ${typeof v === 'string' ? q(v) : String(v)}`).join(', ')} },`,
          `    items: (body) => ${itemsProperty === undefined ? 'body as unknown[]' : `(body as Record<string, unknown[]>)[${q(itemsProperty)}]!`},`,
          '  })',
        ].join('\n'),
        notes: [`The base URL is deployment configuration: ${sources}.`],
        fixture: { path: fixture, text: `${JSON.stringify(itemsProperty === undefined ? kept : { [itemsProperty]: kept }, null, 2)}\n`, records: kept.length },
        test: {
          imports: ["import { readFileSync } from 'node:fs';", "import { http, HttpResponse } from 'msw';"],
          setup: [`const fixture: unknown = JSON.parse(readFileSync(path.join(projectDir, ${JSON.stringify(fixture)}), 'utf8'));`, ...sourceHandlers(sample)],
          kitOptions: ['source'],
          runArgs: "['--date', '2026-01-01']",
        },
        next: { env: `${sources} `, runFlags: '--date today' },
      };
    },
  };
}

/** The msw handlers of the generated test: the source's path answers the fixture, a page at a time for page-number paging. */
function sourceHandlers({ path, paging, itemsProperty }: JsonSample): string[] {
  const route = JSON.stringify(path.split('?')[0]);
  if (paging.style !== 'page-number') {
    return [`/** The HTTP source as msw handlers: ${path} answers the fixture. */`, `const source = [http.get(${route}, () => HttpResponse.json(fixture))];`];
  }
  const all = itemsProperty === undefined ? 'fixture as unknown[]' : `(fixture as Record<string, unknown[]>)[${JSON.stringify(itemsProperty)}]!`;
  const page = itemsProperty === undefined ? 'items' : `{ ${JSON.stringify(itemsProperty)}: items }`;
  return [
    `/** The HTTP source as msw handlers: ${path} answers the fixture, ${paging.perPage} items a page (${paging.pageParam}, ${paging.perPageParam}). */`,
    `const source = [`,
    `  http.get(${route}, ({ request }) => {`,
    `    const query = new URL(request.url).searchParams;`,
    `    const size = Number(query.get(${JSON.stringify(paging.perPageParam)}));`,
    `    const start = (Number(query.get(${JSON.stringify(paging.pageParam)})) - ${paging.firstPage ?? 1}) * size;`,
    `    const items = (${all}).slice(start, start + size);`,
    `    return HttpResponse.json(${page});`,
    `  }),`,
    `];`,
  ];
}
