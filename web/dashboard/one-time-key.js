// The one place a plaintext key is ever put in the page: the box shown after a create or a roll.
// The API returns a plaintext key exactly once, so the box says so, offers Copy, and forgets the
// key (empties the element) as soon as the user moves on: another change, leaving the Keys page,
// typing another key, Done, or leaving the document. It is never stored (no sessionStorage).
const $ = (id) => document.getElementById(id);

export function showOnce(plaintext, about) {
  $('one-time-key').textContent = plaintext;
  $('one-time-about').textContent = about;
  const copy = $('one-time-copy');
  copy.textContent = 'Copy';
  delete copy.dataset.copied;
  $('one-time-copy-status').textContent = '';
  $('one-time').hidden = false;
}

export function clearOnce() {
  $('one-time-key').textContent = '';
  $('one-time-about').textContent = '';
  $('one-time-copy-status').textContent = '';
  $('one-time').hidden = true;
}

async function copy() {
  const text = $('one-time-key').textContent;
  if (!text) return;
  const button = $('one-time-copy');
  try {
    // Only in a secure context (https, or http://127.0.0.1 / localhost); refused without permission.
    if (!navigator.clipboard) throw new Error('no clipboard in this context');
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
    button.dataset.copied = 'true';
    $('one-time-copy-status').textContent = 'Copied to the clipboard.';
  } catch {
    // Fall back to a selection the user copies by hand.
    const range = document.createRange();
    range.selectNodeContents($('one-time-key'));
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    $('one-time-copy-status').textContent =
      'The browser refused to copy: the key is selected, copy it with Ctrl+C (⌘C).';
  }
}

export function initOneTimeKey() {
  $('one-time-copy').addEventListener('click', copy);
  $('one-time-done').addEventListener('click', clearOnce);
  window.addEventListener('pagehide', clearOnce);
  clearOnce();
}
