// A success answer of an operation: its status, words, body by content type, and the headers it sets.
export type Content = Record<string, Record<string, unknown>>;

export interface Answer { status: string; description: string; content: Content; headers?: Record<string, Record<string, unknown>> }
