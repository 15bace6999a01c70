import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { resolveTemporalCli } from '../../../src/temporal/binaries';
import { waitUntil } from '../webhooks/fixtures';

/**
 * The on-call recipes of docs/operators.md, read from the document itself: every ```sh block
 * whose first line is `# recipe: <name>` is one command, run here exactly as written (through
 * bash, so its `$VARIABLES` expand) with `--address <dev server> -o json` appended. The document
 * and the test therefore cannot drift apart.
 */

const DOC = path.join(__dirname, '../../../docs/operators.md');
const BLOCK = /```sh\n# recipe: ([a-z0-9-]+)\n([\s\S]*?)```/g;

export function docRecipes(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [, name, body] of readFileSync(DOC, 'utf8').matchAll(BLOCK)) {
    if (out.has(name!)) throw new Error(`recipe ${name} appears twice in docs/operators.md`);
    out.set(name!, body!.trim());
  }
  return out;
}

const run = promisify(execFile);

/** Runs one recipe against `address` and parses its JSON answer. */
export async function runRecipe(name: string, address: string, vars: Record<string, string>): Promise<unknown> {
  const command = docRecipes().get(name);
  if (!command) throw new Error(`no recipe named ${name} in docs/operators.md`);
  const cliDir = path.dirname(resolveTemporalCli());
  const { stdout } = await run('bash', ['-c', `${command} --address ${address} -o json`], {
    env: { ...process.env, ...vars, PATH: `${cliDir}${path.delimiter}${process.env.PATH ?? ''}` },
    timeout: 20_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout);
}

/** The workflow ids of a `temporal workflow list -o json` answer, sorted. */
const listedIds = (answer: unknown): string[] =>
  ((answer ?? []) as { execution: { workflowId: string } }[]).map((w) => w.execution.workflowId).sort();

/** A JSON payload as the CLI prints it (base64 data), decoded. */
export const decodePayload = (p: { data?: string } | undefined): unknown =>
  p?.data ? JSON.parse(Buffer.from(p.data, 'base64').toString()) : undefined;

/** Runs a list recipe until visibility catches up (about a second), then checks its exact answer. */
export async function expectRecipeList(
  address: string,
  recipe: string,
  vars: Record<string, string>,
  expected: string[],
): Promise<void> {
  const want = [...expected].sort();
  let got: string[] = [];
  await waitUntil(
    async () => {
      got = listedIds(await runRecipe(recipe, address, vars));
      return JSON.stringify(got) === JSON.stringify(want);
    },
    10_000,
    `${recipe} to list ${want.join(', ')}`,
  ).catch(() => undefined);
  expect(got).toEqual(want);
}
