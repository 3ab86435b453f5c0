// Fields the access line and the request log share: a client's strings cut to a bound, a URL's path.
/** Client-chosen strings are cut: a log line must never grow with what a client sends. */
export const bounded = (s: string, max = 256) => (s.length > max ? `${s.slice(0, max)}…` : s);

export const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};
