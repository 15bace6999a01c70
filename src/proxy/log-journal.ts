import type { Logger } from '../logger';
import type { Metrics } from '../metrics/metrics';
import type { RequestJournal, Segment } from './journal';
import { fromRecord, journalLine, type LogEntry } from '../requests/writer';

/** A row waiting in the request log writer's queue, with its journal record. */
export interface Queued extends LogEntry {
  seg?: Segment | undefined;
  settled?: boolean;
  replayed?: boolean;
}

/**
 * The request log writer's side of its journal (RequestLogWriter, log-writer.ts): appending a row (a failing disk
 * leaves rows in memory only, logged once until it recovers) and replaying the rows dead processes left behind.
 */
export class WriterJournal {
  private failing = false;

  constructor(
    readonly file: RequestJournal,
    private readonly logger: Logger,
    private readonly metrics: Metrics | undefined,
  ) {}

  /** Sets `q.seg` and calls `done` once the record is on file (or could not be written). */
  append(q: Queued, done: () => void = () => undefined): void {
    const journal = this.file;
    const failed = (err: unknown) => {
      // Disk full or unwritable: the row still goes to the database from memory, as without a journal.
      this.metrics?.requestLogRows.inc({ outcome: 'unjournaled' });
      if (!this.failing)
        this.logger.error(
          { err, dir: journal.dir },
          'request journal write failed; rows are kept in memory only until it recovers',
        );
      this.failing = true;
    };
    try {
      q.seg = journal.append(journalLine(q), (err) => {
        if (err === undefined) this.failing = false;
        else {
          failed(err);
          // Not on file: nothing to remove later (unless the database already settled it).
          if (q.seg && !q.settled) journal.settle(q.seg);
          q.seg = undefined;
        }
        done();
      });
    } catch (err) {
      failed(err);
      done();
    }
  }

  /**
   * Hands `requeue` the rows dead processes left in the journal directory (each already appended to our own
   * journal); returns how many were found.
   */
  async replay(requeue: (q: Queued) => void): Promise<number> {
    let found = 0;
    try {
      found = await this.replayFiles(requeue);
    } catch (err) {
      this.logger.error(
        { err, dir: this.file.dir },
        'request journal replay failed; the files stay for the next start',
      );
    }
    if (found)
      this.logger.info(
        { rows: found },
        'request journal: rows of a previous process re-queued (written once: inserts are idempotent)',
      );
    return found;
  }

  private async replayFiles(requeue: (q: Queued) => void): Promise<number> {
    const journal = this.file;
    let found = 0;
    for (const file of await journal.claimOrphans()) {
      for (const rec of await journal.read(file)) {
        const q = fromRecord(rec);
        if (!q) continue;
        this.append(q); // into our own journal first: the claimed file can go once that is written
        requeue(q);
        found++;
      }
      journal.flush();
      journal.remove(file);
    }
    return found;
  }
}
