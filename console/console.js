// The console: one page, two sign-ins. The operator signs in with the admin key (kept in this tab's session storage,
// never in a URL, a cookie or local storage, and sent only to this origin's /admin routes); a user signs in with
// their name and the password they set from the operator's invite (a session in an HttpOnly cookie this script never
// reads). An invite link carries its code in the URL's fragment, which is read once and wiped from the address bar.
import { $, SignedOut, notice } from './common.js';
import { checkKey, keySlot, refreshOperator, stopOperator, wireOperator } from './operator.js';
import { refreshMember, signInMember, signOutMember, wireMember } from './member.js';

let inviteCode = '';

function show(view) {
  for (const [id, name] of [['#sign-in', 'sign-in'], ['#invite', 'invite'], ['#app', 'operator'], ['#me', 'member']]) $(id).hidden = view !== name;
  $('#session-actions').hidden = view !== 'operator' && view !== 'member';
  $('#reload-config').hidden = view !== 'operator';
  document.body.dataset.view = view;
}

/** Runs an action, showing its failure; a refused key or an ended session goes back to the sign-in. */
async function attempt(what, fn) {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof SignedOut) return signOut(err.message);
    notice(`${what}: ${err.message}`, true);
  }
}

async function operatorSignIn(event) {
  event.preventDefault();
  sessionStorage.setItem(keySlot, $('#admin-key').value.trim());
  $('#admin-key').value = '';
  try {
    await checkKey();
  } catch (err) {
    sessionStorage.removeItem(keySlot);
    $('#sign-in-error').textContent = err instanceof SignedOut ? 'That key was refused.' : err.message;
    return;
  }
  $('#sign-in-error').textContent = '';
  show('operator');
  await refreshOperator();
}

async function memberSignIn(event) {
  event.preventDefault();
  const f = new FormData(event.target);
  try {
    await signInMember(String(f.get('name')).trim(), String(f.get('password')));
  } catch (err) {
    $('#user-sign-in-error').textContent = err instanceof SignedOut ? 'Wrong user name or password.' : err.message;
    return;
  } finally {
    $('#user-password').value = '';
  }
  $('#user-sign-in-error').textContent = '';
  show('member');
  await attempt('Your account', refreshMember);
}

async function acceptInvite(event) {
  event.preventDefault();
  const f = new FormData(event.target);
  if (f.get('password') !== f.get('confirm')) { $('#invite-error').textContent = 'The two passwords differ.'; return; }
  const res = await fetch('/console/api/invite', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: inviteCode, password: f.get('password') }),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) { $('#invite-error').textContent = json.error?.message?.replace(/ \(request id: [^)]+\)$/, '') ?? `HTTP ${res.status}`; return; }
  event.target.reset();
  inviteCode = '';
  $('#user-name').value = json.user.name;
  show('sign-in');
  notice(`Your password is set, ${json.user.name}: sign in with it.`);
  $('#user-password').focus();
}

async function signOut(message = '') {
  if (document.body.dataset.view === 'member') await signOutMember();
  sessionStorage.removeItem(keySlot);
  stopOperator();
  show('sign-in');
  $('#sign-in-error').textContent = message;
  notice('');
}

async function boot() {
  const code = /^#invite=([A-Za-z0-9_-]{1,128})$/.exec(location.hash)?.[1];
  if (code) {
    inviteCode = code;
    history.replaceState(null, '', location.pathname); // the code leaves the address bar and the tab's history
    return show('invite');
  }
  if (sessionStorage.getItem(keySlot)) { show('operator'); return refreshOperator(); }
  try {
    await refreshMember();
    show('member');
  } catch {
    show('sign-in');
  }
}

wireOperator(attempt);
wireMember(attempt);
$('#sign-in-form').addEventListener('submit', operatorSignIn);
$('#user-sign-in-form').addEventListener('submit', memberSignIn);
$('#invite-form').addEventListener('submit', acceptInvite);
$('#sign-out').addEventListener('click', () => signOut());
boot();
