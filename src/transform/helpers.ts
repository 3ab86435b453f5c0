// Vendor-neutral JSONata functions available to every transform.
import { randomUUID } from 'node:crypto';

export const helperFunctions: Record<string, { impl: (...args: any[]) => unknown; signature?: string }> = {
  // Unix seconds now; vendors disagree on time units, transforms convert with this.
  nowSeconds: { impl: () => Math.floor(Date.now() / 1000), signature: '<:n>' },
  uuid: { impl: () => randomUUID(), signature: '<:s>' },
  // Parses JSON text a vendor embeds in a string field; undefined when it is not JSON.
  parseJson: {
    impl: (s: string) => {
      try { return JSON.parse(s); } catch { return undefined; }
    },
    signature: '<s-:x>',
  },
};
