// A file the gateway keeps for a caller: its bytes live at the vendor that will use them, the record here says where
// (channel, the vendor's id), whose it is and, for a batch input file, what its requests ask for.
import { createHash, randomBytes } from 'node:crypto';
import type { BatchLines } from '../billing/batch-price.js';
import type { FileObject } from '../types/generated/file.response.js';

export interface FileRecord {
  id: string;
  owner: { user: string; token: string };
  channel: string;
  /** The channel's operation that holds files: its content path reads the bytes, its delete removes them. */
  operation: string;
  upstream_id: string;
  purpose: string;
  filename: string;
  bytes: number;
  created_at: number; // unix seconds
  expires_at: number;
  /** A batch input file: what its requests ask for, read line by line when it was uploaded (check-lines.ts). */
  lines?: LineSummary;
}

/** Every line of a batch input file calls one url with one model; the sums size the batch's reservation. */
export interface LineSummary extends BatchLines {
  url: string;
  /** The route a line follows (its body schema, price inputs and usage paths). */
  route: string;
  model: string;
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const encode = (bytes: Buffer) => {
  let s = 'file-';
  for (const b of bytes.subarray(0, 24)) s += alphabet[b % 62];
  return s;
};

/** Random, and never the vendor's: an id reveals neither the vendor nor how many files there are. */
export const newFileId = () => encode(randomBytes(24));

/** A task's result file has one id whoever records it, so recording it again (after a crash, on another instance) is a no-op. */
export const resultFileId = (taskId: string, name: string) => encode(createHash('sha256').update(`${taskId}\u0000${name}`).digest());

/** OpenAI's file object. */
export function fileObject(f: FileRecord): FileObject {
  return {
    id: f.id, object: 'file', bytes: f.bytes, created_at: f.created_at, expires_at: f.expires_at, filename: f.filename,
    purpose: f.purpose, status: 'processed', status_details: null,
  };
}
