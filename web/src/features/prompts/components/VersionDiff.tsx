import { Code, Group, NativeSelect } from '@mantine/core';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { diffLines, templateText } from '../lib/diff';
import classes from './VersionDiff.module.css';

type Version = Schema<'PromptVersion'>;

/** A line diff of any two versions; by default the previous version against the latest. */
export function VersionDiff({ versions }: { versions: Version[] }) {
  const [pair, setPair] = useState<[number, number] | null>(null);
  const [a, b] = pair ?? [versions[1]?.version ?? versions[0]!.version, versions[0]!.version];
  const text = (v: number) => templateText(versions.find((x) => x.version === v)?.template);
  const options = versions.map((v) => ({ value: String(v.version), label: `v${v.version}` }));
  return (
    <>
      <Group gap="sm">
        <NativeSelect
          label="From"
          size="sm"
          value={String(a)}
          data={options}
          onChange={(e) => setPair([Number(e.currentTarget.value), b])}
        />
        <NativeSelect
          label="to"
          size="sm"
          value={String(b)}
          data={options}
          onChange={(e) => setPair([a, Number(e.currentTarget.value)])}
        />
      </Group>
      <Code block tabIndex={0} aria-label="Differences between the versions" className={`diff ${classes.diff}`}>
        {diffLines(text(a), text(b)).map((l, k) => (
          <div
            key={k}
            className={l.op === '+' ? `add ${classes.add}` : l.op === '-' ? `del ${classes.del}` : undefined}
          >
            <span aria-hidden="true">{l.op} </span>
            {l.op !== ' ' && <span className={classes.sr}>{l.op === '+' ? 'added: ' : 'removed: '}</span>}
            {l.text}
          </div>
        ))}
      </Code>
    </>
  );
}
