// The request as an auth scheme sees it, apart from the schemes' index so that each scheme imports only downward.

/** `path` is the request target (path and query); headers are lower-case and mutable. */
export interface Outgoing { method: string; host: string; path: string; headers: Record<string, string>; body?: Buffer }
