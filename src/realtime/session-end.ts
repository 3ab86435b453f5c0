// Every way a live session can stop, named once for the session and the meter that may end it (a balance run dry).
export type SessionEnd = 'client_gone' | 'upstream_closed' | 'idle_timeout' | 'session_expired' | 'insufficient_user_quota' | 'shutting_down' | 'frame_too_large' | 'unpriced_model';
