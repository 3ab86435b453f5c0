// A fresh token with the official `openai` client on it, and the access line of its last request: what most
// end-to-end tests of one route start from.
import OpenAI from 'openai';
import { eventually, type Stack } from './stack.js';

export async function tokenClient(stack: Stack, quota = 1_000_000) {
  const t = await stack.token({ quota });
  return { ...t, openai: new OpenAI({ apiKey: t.key, baseURL: `${stack.url}/v1`, maxRetries: 0 }) };
}

/** The access line of the token's last request (of `route` when named), once written. */
export async function lastRecord(stack: Stack, tokenId: string, route?: string): Promise<Record<string, any>> {
  let rec: Record<string, any> | undefined;
  const mine = (l: Record<string, any>) => l.msg === 'request' && l.token_id === tokenId && (!route || l.route === route);
  await eventually(() => { rec = stack.logs().filter(mine).at(-1); return rec !== undefined; }, 6000);
  return rec!;
}
