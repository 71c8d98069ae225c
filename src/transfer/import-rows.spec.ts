import { parse as parseCsv } from 'csv-parse';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { csvFieldsSoFar, ndjsonToStaging, RowChecker } from './import-rows';
import { ImportLineRefusedError, MAX_IMPORT_LINE_BYTES } from './transfer.errors';

/** Runs an NDJSON body, in the given chunks, through the parser; answers the staged lines. */
async function ndjson(chunks: Buffer[]): Promise<{ staged: string; checker: RowChecker }> {
  const checker = new RowChecker(1000);
  let staged = '';
  await pipeline(
    Readable.from(chunks),
    ndjsonToStaging(checker),
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        staged += chunk.toString();
        callback();
      },
    }),
  );
  return { staged, checker };
}

describe('ndjsonToStaging', () => {
  it('reads lines cut anywhere, characters of several bytes too', async () => {
    const text = '{"external_id":"ü1","full_name":"Jörg 😀"}\n\n{"external_id":"u2"}';
    const bytes = Buffer.from(text);
    for (let size = 1; size <= 7; size++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
      const { staged, checker } = await ndjson(chunks);
      expect(checker.stats.errors).toEqual([]);
      expect(checker.stats.rows).toBe(2);
      expect(staged).toContain('\tü1\tJörg 😀\t');
      expect(staged).toMatch(/^3\t.*\tu2\t/m);
    }
  });

  it('refuses a line over the limit as soon as it passes it, naming the line', async () => {
    const head = Buffer.from('{"external_id":"a"}\n{"external_id":"');
    const piece = Buffer.alloc(64 * 1024, 'x');
    const endless = Array.from({ length: 40 }, () => piece); // 2.5 MiB
    const error = await ndjson([head, ...endless]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportLineRefusedError);
    expect((error as ImportLineRefusedError).line).toBe(2);
    const exact = Buffer.alloc(MAX_IMPORT_LINE_BYTES, ' ');
    await expect(ndjson([exact, Buffer.from('\n')])).resolves.toBeDefined();
  });
});

describe('csvFieldsSoFar', () => {
  it("counts the fields of the record csv-parse is in the middle of (csv-parse's state)", () => {
    const parser = parseCsv({ relax_column_count: true });
    parser.on('data', () => undefined);
    parser.write(Buffer.from('a,b\nc,'));
    expect(csvFieldsSoFar(parser)).toBe(1);
    parser.write(Buffer.from(','.repeat(500)));
    // csv-parse keeps the last few bytes of a chunk back (a delimiter may go on in the next).
    expect(csvFieldsSoFar(parser)).toBeGreaterThan(490);
    parser.destroy();
  });
});
