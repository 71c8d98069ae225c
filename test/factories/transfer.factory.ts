import type { TestApp } from '../utils/create-test-app';

export interface ImportStatus {
  import_id: string;
  status: string;
  phase: string;
  rows_total: number;
  rows_done: number;
  created: number;
  updated: number;
  unchanged: number;
  error_count: number;
  errors: { line: number; code: string; message: string }[];
}

/** Posts an import file as the platform operator; answers the 202 body (or throws). */
export async function postImport(
  t: TestApp,
  slug: string,
  body: string | Buffer,
  type = 'text/csv',
  token = t.adminToken,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await t
    .http()
    .post(`/admin/v1/tenants/${slug}/imports`)
    .set('Authorization', `Bearer ${token}`)
    .set('Content-Type', type)
    .send(body);
  return { status: res.status, body: res.body };
}

/** Polls an import until it has finished (bounded). */
export async function waitForImport(
  t: TestApp,
  slug: string,
  importId: string,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<ImportStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t
      .http()
      .get(`/admin/v1/tenants/${slug}/imports/${importId}`)
      .set('Authorization', `Bearer ${t.adminToken}`);
    if (res.status !== 200)
      throw new Error(`import status: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.status === 'succeeded' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline) throw new Error(`import ${importId} still ${res.body.status}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Imports a file and waits for the outcome. */
export async function runImport(
  t: TestApp,
  slug: string,
  body: string | Buffer,
  type = 'text/csv',
): Promise<ImportStatus> {
  const posted = await postImport(t, slug, body, type);
  if (posted.status !== 202) {
    throw new Error(`import: ${posted.status} ${JSON.stringify(posted.body)}`);
  }
  return waitForImport(t, slug, posted.body.import_id as string);
}

/** The tenant's network as the tests compare it: by external id, sorted. */
export async function networkOf(t: TestApp, slug: string) {
  const rows: {
    external_id: string;
    referrer: string | null;
    root: string;
    depth: number;
    downline_count: number;
    deepest_depth: number;
    full_name: string | null;
    email: string | null;
    role: string;
  }[] = await t.db.query(
    `SELECT m.external_id, p.external_id AS referrer, r.external_id AS root, m.depth,
            m.downline_count, m.deepest_depth, m.full_name, m.email, m.role
       FROM members m JOIN tenants tn ON tn.id = m.tenant_id AND tn.slug = $1
       LEFT JOIN members p ON p.tenant_id = m.tenant_id AND p.id = m.referrer_member_id
       JOIN members r ON r.tenant_id = m.tenant_id AND r.id = m.root_member_id
      ORDER BY m.external_id`,
    [slug],
  );
  return rows;
}
