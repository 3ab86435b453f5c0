// A node:test reporter beside the spec one: a line as each test starts running and as it ends (`run`/`done`, then its
// name path), so that when a file is killed at its timeout the runner can name the test that hung.
export default async function* progress(source) {
  const path = [];
  for await (const e of source) {
    if (e.type !== 'test:dequeue' && e.type !== 'test:complete') continue;
    path.length = e.data.nesting;
    path[e.data.nesting] = e.data.name;
    yield `${e.type === 'test:dequeue' ? 'run' : 'done'}\t${path.join(' > ')}\n`;
  }
}

/** The tests a progress file shows started and not ended, innermost last. */
export function unfinished(text) {
  const open = [];
  for (const line of text.split('\n')) {
    const [what, name] = line.split('\t');
    if (what === 'run') open.push(name);
    if (what === 'done') open.splice(open.lastIndexOf(name), 1);
  }
  return open;
}
