import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../context';
import type { Logger } from '../logger';

/**
 * The request log's local write-ahead journal. Every row is appended here before the caller
 * receives the last byte of its answer; a write into the page cache survives a kill of the
 * process, so a row the database had not committed yet is found again at the next start.
 *
 * Group commit: the rows of calls that end in the same turn of the event loop are written with one
 * `write` right after that turn's I/O callbacks (setImmediate), and each caller is told when its
 * row is on file. A write syscall costs ~20 µs here; batching keeps it off most calls.
 *
 * Files are segments named `<host>~<pid>~<process start>~<token>~<n>.ndjson` (one JSON record per line). A segment
 * is sealed after `rotateMs` or `rotateRecords` and deleted once every row in it was written to
 * the database. At start a process claims the segments of dead owners (same host and pid gone, or
 * the same pid with another start time, e.g. pid 1 of a restarted container; another host: not touched for `staleMs`)
 * by an atomic rename, so two replicas never
 * replay the same file, and hands their records back to the writer.
 */
export interface JournalOptions {
  dir: string;
  rotateMs?: number;
  rotateRecords?: number;
  /** A segment of another host whose owner has not touched it for this long is orphaned. */
  staleMs?: number;
}

export interface Segment {
  readonly file: string;
  fd: number;
  records: number;
  /** Records not yet written to the database. */
  open: number;
  readonly openedAt: number;
  sealed: boolean;
}

const SUFFIX = '.ndjson';
const host = () => os.hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';

type Written = (err?: unknown) => void;

export class RequestJournal {
  private current: Segment | undefined;
  private pending: string[] = [];
  private waiting: Written[] = [];
  private scheduled = false;
  private seq = 0;
  private readonly host = host();
  private readonly started = String(Math.floor(performance.timeOrigin));
  private readonly owner = `${this.host}~${process.pid}~${this.started}~${randomBytes(6).toString('hex')}`;
  private readonly rotateMs: number;
  private readonly rotateRecords: number;
  private readonly staleMs: number;
  readonly dir: string;

  constructor(
    opts: JournalOptions,
    private readonly logger: Logger,
  ) {
    this.dir = opts.dir;
    this.rotateMs = opts.rotateMs ?? 1000;
    this.rotateRecords = opts.rotateRecords ?? 5000;
    this.staleMs = opts.staleMs ?? 60_000;
    fs.mkdirSync(this.dir, { recursive: true });
  }

  /**
   * Queues one newline-terminated record for the current segment; `written` is called once it is
   * on file (with the error when the write failed, e.g. ENOSPC). Throws when no segment can be opened.
   */
  append(line: string, written: Written): Segment {
    let seg = this.current;
    if (!seg || seg.records >= this.rotateRecords || performance.now() - seg.openedAt > this.rotateMs)
      seg = this.rotate();
    this.pending.push(line);
    this.waiting.push(written);
    seg.records++;
    seg.open++;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return seg;
  }

  /** Writes the queued records of the current segment now, with one write. */
  flush(): void {
    this.scheduled = false;
    if (!this.pending.length) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    const waiting = this.waiting;
    this.pending = [];
    this.waiting = [];
    let error: unknown;
    try {
      fs.writeSync(this.current!.fd, text);
    } catch (err) {
      error = err;
    }
    for (const w of waiting) w(error);
  }

  /** Marks `n` records of the segment as written to the database; a sealed segment with none left goes. */
  settle(seg: Segment, n = 1): void {
    seg.open -= n;
    if (seg.sealed && seg.open <= 0) this.discard(seg);
  }

  /** Forces the current segment to disk (for machine crashes; a process crash needs no fsync). */
  async sync(): Promise<void> {
    this.flush();
    const seg = this.current;
    if (!seg || seg.sealed) return;
    await new Promise<void>((resolve) =>
      fs.fdatasync(seg.fd, (err) => {
        if (err) this.logger.warn({ err }, 'request journal fsync failed');
        resolve();
      }),
    );
  }

  /** Tells other hosts sharing the directory that this owner is alive. */
  async heartbeat(): Promise<void> {
    const seg = this.current;
    const now = new Date();
    if (seg && !seg.sealed) await fs.promises.utimes(seg.file, now, now).catch(() => undefined);
  }

  /** Takes over the segments of dead owners; returns the claimed files (records still to replay). */
  async claimOrphans(): Promise<string[]> {
    const claimed: string[] = [];
    for (const name of await fs.promises.readdir(this.dir)) {
      if (!name.endsWith(SUFFIX) || name.startsWith(this.owner + '~')) continue;
      const file = path.join(this.dir, name);
      if (!(await this.orphaned(name, file))) continue;
      const to = path.join(this.dir, `${this.owner}~claim${claimed.length}-${++this.seq}${SUFFIX}`);
      try {
        await fs.promises.rename(file, to); // atomic: of two claimants, one wins and the other sees ENOENT
        claimed.push(to);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return claimed;
  }

  /** The records of a claimed file; a torn last line (machine crash mid-write) is skipped. */
  async read(file: string): Promise<unknown[]> {
    const text = await fs.promises.readFile(file, 'utf8');
    const out: unknown[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        this.logger.warn({ file }, 'request journal: unreadable record skipped');
      }
    }
    return out;
  }

  remove(file: string): void {
    fs.rmSync(file, { force: true });
  }

  /** Seals the current segment; segments with unwritten rows stay for the next start to replay. */
  close(): void {
    this.flush();
    if (this.current) this.seal(this.current);
    this.current = undefined;
    fs.promises.rmdir(this.dir).catch(() => undefined); // only succeeds when nothing is left
  }

  private rotate(): Segment {
    this.flush(); // queued records belong to the segment being sealed
    if (this.current) this.seal(this.current);
    const file = path.join(this.dir, `${this.owner}~${++this.seq}${SUFFIX}`);
    const seg: Segment = {
      file,
      fd: fs.openSync(file, 'a'),
      records: 0,
      open: 0,
      openedAt: performance.now(),
      sealed: false,
    };
    this.current = seg;
    return seg;
  }

  private seal(seg: Segment): void {
    seg.sealed = true;
    if (seg.open <= 0) this.discard(seg);
  }

  private discard(seg: Segment): void {
    if (seg.fd >= 0) fs.closeSync(seg.fd);
    seg.fd = -1;
    fs.rmSync(seg.file, { force: true });
  }

  private async orphaned(name: string, file: string): Promise<boolean> {
    const [h, pidText, started] = name.split('~');
    const pid = Number(pidText);
    // Same pid, other start time: a previous life (same start time: another journal of this very process).
    if (h === this.host && Number.isInteger(pid)) return pid === process.pid ? started !== this.started : !alive(pid);
    const st = await fs.promises.stat(file).catch(() => null);
    return st !== null && Date.now() - st.mtimeMs > this.staleMs;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The api process's journal, or none when `REQUEST_LOG_JOURNAL_DIR=off`. One sub-directory per
 * database (host, port, name), so a journal is only ever replayed into the database it was meant for.
 */
export function requestJournalFor(ctx: AppContext): RequestJournal | undefined {
  const { config, logger } = ctx;
  if (config.REQUEST_LOG_JOURNAL_DIR === 'off') return undefined;
  const u = new URL(config.DATABASE_URL ?? 'postgres://localhost/postgres');
  const dbKey = `${u.hostname}_${u.port || '5432'}_${decodeURIComponent(u.pathname.slice(1)) || 'postgres'}`.replace(
    /[^A-Za-z0-9._-]/g,
    '_',
  );
  const journal = new RequestJournal(
    { dir: path.resolve(config.REQUEST_LOG_JOURNAL_DIR, dbKey) },
    logger.child({ component: 'request-journal' }),
  );
  ctx.every('request-journal-heartbeat', 10_000, () => journal.heartbeat());
  if (config.REQUEST_LOG_JOURNAL_FSYNC_MS > 0)
    ctx.every('request-journal-fsync', config.REQUEST_LOG_JOURNAL_FSYNC_MS, () => journal.sync());
  return journal;
}
