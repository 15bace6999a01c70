import type { Knex } from 'knex';

/**
 * Re-masks security finding excerpts stored before the AWS secret key fix (docs/security.md).
 *
 * The secretlint AWSSecretAccessKey rule reports a range that starts at the `AWS_SECRET_ACCESS_KEY=`
 * label and has the key's length; the scanner masked that range, so the mask (4 characters and
 * exactly 12 stars) ended inside the key and the key's last characters followed the stars in clear.
 * Any finding's excerpt could hold them: after those 12 stars, or at its start (`…` and then the
 * key's rest) when its window began inside the key or was moved to the end of the masked range.
 * No other rule's range fell short of its value, and no stored column but `excerpt` holds text
 * (`fingerprint` is an HMAC).
 *
 * The key itself is not stored, so it cannot be looked for. Instead, conservatively, every run of
 * the key's alphabet is dropped where a leaked rest can be: the run an excerpt starts with after
 * `…`, and the run right after a mask of exactly 12 stars (the old mask's; PII masks of other
 * lengths are left alone) when it is longer than 4 characters or ends the excerpt. The rest of a
 * key after that mask is at least as long as its label (16 characters or more) unless the excerpt
 * ends in it, so every leaked character goes, while a card's last 4 digits after its 12 stars stay.
 * The price: an excerpt loses the start of its first (already cut) word.
 * Fingerprints taken over the wrong slice stay as they are (an HMAC cannot be recomputed without the
 * key): such a finding is not matched again, and the next sighting of its key opens a new one.
 */
const KEY = '[A-Za-z0-9/+=]';
const AT_START = `^…${KEY}+`;
const AFTER_MASK = `(?<!\\*)\\*{12}(?:${KEY}{5,}|${KEY}{1,4}(?=…$))`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `update security_findings set excerpt = regexp_replace(regexp_replace(excerpt, ?, '…'), ?, '************', 'g')
      where excerpt ~ ? or excerpt ~ ?`,
    [AT_START, AFTER_MASK, AT_START, AFTER_MASK],
  );
}

/** Nothing to restore: the dropped characters were the leak. */
export async function down(): Promise<void> {}
