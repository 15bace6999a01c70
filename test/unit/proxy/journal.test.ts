import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createLogger } from '../../../src/logger';
import { RequestJournal } from '../../../src/proxy/journal';

describe('request journal', () => {
  let dir: string;
  const logger = createLogger('silent');
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-unit-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const host = os.hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
  const noop = () => undefined;
  const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!; // exited before we look

  it('deletes a segment once every record in it is settled and it is sealed', () => {
    const j = new RequestJournal({ dir, rotateRecords: 2 }, logger);
    const a = j.append('{"n":1}\n', noop);
    j.append('{"n":2}\n', noop);
    const c = j.append('{"n":3}\n', noop); // rotates: the first segment is written and sealed with two open records
    expect(fs.readFileSync(a.file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    expect(c).not.toBe(a);
    expect(fs.readdirSync(dir)).toHaveLength(2);
    j.settle(a, 2);
    expect(fs.readdirSync(dir)).toHaveLength(1);
    j.settle(c);
    j.close();
    expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual([]); // nothing left to replay
  });

  it('writes the records of one event-loop turn with one write and only then reports them written', async () => {
    const j = new RequestJournal({ dir }, logger);
    const order: string[] = [];
    const seg = j.append('{"n":1}\n', (err) => order.push(`1:${err ?? 'ok'}`));
    j.append('{"n":2}\n', (err) => order.push(`2:${err ?? 'ok'}`));
    expect(fs.readFileSync(seg.file, 'utf8')).toBe(''); // nothing reported, nothing written yet
    const writes = jest.spyOn(fs, 'writeSync');
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['1:ok', '2:ok']);
    expect(writes).toHaveBeenCalledTimes(1);
    writes.mockRestore();
    expect(fs.readFileSync(seg.file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    // A failed write (here: the descriptor is gone) is reported to every waiting record.
    fs.closeSync(seg.fd);
    const errors: unknown[] = [];
    j.append('{"n":3}\n', (err) => errors.push(err));
    await new Promise((r) => setImmediate(r));
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('EBADF');
    seg.fd = -1;
  });

  it(
    'claims files of dead or reused pids and of stale other hosts, ' + 'never of a live process, and skips a torn line',
    async () => {
      fs.writeFileSync(
        path.join(dir, `${host}~${deadPid()}~1~aaaa~1.ndjson`),
        '{"row":{"id":"1"}}\n{"row":{"id":"2"}}\n{"row":',
      );
      // our pid, earlier life (other start time)
      fs.writeFileSync(path.join(dir, `${host}~${process.pid}~1~bbbb~1.ndjson`), '{"row":{"id":"3"}}\n');
      fs.writeFileSync(path.join(dir, `${host}~${process.ppid}~1~cccc~1.ndjson`), '{"row":{"id":"4"}}\n'); // alive
      const otherStale = path.join(dir, `otherhost~1~1~dddd~1.ndjson`);
      fs.writeFileSync(otherStale, '{"row":{"id":"5"}}\n');
      fs.utimesSync(otherStale, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
      // fresh: its owner may be alive
      fs.writeFileSync(path.join(dir, `otherhost~2~1~eeee~1.ndjson`), '{"row":{"id":"6"}}\n');
      const j = new RequestJournal({ dir }, logger);
      const claimed = await j.claimOrphans();
      const ids = (await Promise.all(claimed.map((f) => j.read(f))))
        .flat()
        .map((r) => (r as { row: { id: string } }).row.id);
      expect(ids.sort()).toEqual(['1', '2', '3', '5']);
      // Another journal of this same process (same pid and start time) takes nothing from the first.
      expect(await new RequestJournal({ dir }, logger).claimOrphans()).toEqual([]);
    },
  );
});
