import { http, HttpResponse, type RequestHandler } from 'msw';

/**
 * The default description of a destination in the test kit: an API that accepts every `POST`,
 * `PUT` and `PATCH` on any path with `201` and the request's JSON body plus `id: "rec-<n>"`
 * (n counts from 1 per server), and answers any `GET` with `404`. It suits a destination whose
 * `remoteReference` reads `id` and whose strategy needs no look-up (`idempotency-key`,
 * `mark-before-send`); describe any other API with your own msw handlers.
 */
export function recordingApi(): RequestHandler[] {
  let next = 0;
  return [
    http.all('*', async ({ request }) => {
      if (request.method === 'GET') return HttpResponse.json({ error: 'the recording destination keeps no records to look up' }, { status: 404 });
      const text = await request.text();
      const body = text.length > 0 ? (JSON.parse(text) as unknown) : {};
      next += 1;
      return HttpResponse.json({ ...(typeof body === 'object' && body !== null ? body : { body }), id: `rec-${next}` }, { status: 201 });
    }),
  ];
}
