/** Checks on a refusal: an RFC 9457 problem document (README.md, "Errors"). */
import type { Response } from 'supertest';

type Answer = Pick<Response, 'status' | 'headers'> & { body: { code?: string } };

/** The status and code, the problem+json type and the document's own fields agree. */
export function expectProblem(res: Answer, status: number, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, code });
}
