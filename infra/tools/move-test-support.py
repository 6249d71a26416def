#!/usr/bin/env python3
"""Moves the test helpers that live beside the tests into test/support/ and rewrites every
reference to them: relative imports and paths (resolved from the referring file), paths from the
repository root, and the moved files' own relative imports. Idempotent: a helper already moved is
skipped, and references are rewritten again (for work merged after the move).

Run from the repository root: python3 infra/tools/move-test-support.py
"""
import os
import re
import subprocess

MOVES = {
    'test/clients/python_live.py': 'test/support/python_live.py',
    'test/cluster/clickhouse-fixtures.ts': 'test/support/cluster-clickhouse-fixtures.ts',
    'test/cluster/support.ts': 'test/support/cluster.ts',
    'test/faults/stack-settings.ts': 'test/support/fault-stack-settings.ts',
    'test/faults/stream-support.ts': 'test/support/fault-stream.ts',
    'test/integration/analytics-fixtures.ts': 'test/support/analytics-fixtures.ts',
    'test/integration/auth-support.ts': 'test/support/auth.ts',
    'test/integration/clients-support.ts': 'test/support/clients.ts',
    'test/integration/consumer-fixtures.ts': 'test/support/consumer-fixtures.ts',
    'test/integration/dashboard-analytics-fixtures.ts': 'test/support/dashboard-analytics-fixtures.ts',
    'test/integration/estimate-fixtures.ts': 'test/support/estimate-fixtures.ts',
    'test/integration/keys-api-support.ts': 'test/support/keys-api.ts',
    'test/integration/lifecycle-fixtures.ts': 'test/support/lifecycle-fixtures.ts',
    'test/integration/lifecycle-support.ts': 'test/support/lifecycle.ts',
    'test/integration/redis-upgrade-deliver.ts': 'test/support/redis-upgrade-deliver.ts',
    'test/integration/redis-upgrade-fill.ts': 'test/support/redis-upgrade-fill.ts',
    'test/integration/redis-upgrade-previous.ts': 'test/support/redis-upgrade-previous.ts',
    'test/integration/stream-support.ts': 'test/support/stream.ts',
    'test/integration/webhooks-receiver.ts': 'test/support/webhooks-receiver.ts',
}
SCANNED = ('.ts', '.mts', '.mjs', '.js', '.py', '.md')
SKIPPED_DIRS = {'node_modules', '.git', 'dist', '.local', 'clients'}
LITERAL = re.compile(r"""(['"`])(\.{1,2}/[^'"`\s]+)\1""")


def files():
    for root, dirs, names in os.walk('.'):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        for name in names:
            path = os.path.normpath(os.path.join(root, name))
            if name.endswith(SCANNED) and path != os.path.relpath(__file__):
                yield path


def rewrite(path, old_location):
    """Rewrites the references in `path`, whose relative paths were written from `old_location`."""
    with open(path, encoding='utf8') as f:
        text = f.read()
    here = os.path.dirname(path)
    was_here = os.path.dirname(old_location)

    def relative(match):
        quote, spec = match.groups()
        target = os.path.normpath(os.path.join(was_here, spec))
        if target not in MOVES and was_here == here:
            return match.group(0)  # neither end moved: left as written
        target = MOVES.get(target, target)
        if not os.path.exists(target):
            return match.group(0)
        new = os.path.relpath(target, here)
        if not new.startswith('.'):
            new = './' + new
        return f'{quote}{new}{quote}'

    changed = LITERAL.sub(relative, text)
    for old, new in MOVES.items():
        changed = re.sub(rf'(?<![\w./-]){re.escape(old)}', new, changed)
    if changed != text:
        with open(path, 'w', encoding='utf8') as f:
            f.write(changed)


moved_from = {}
for old, new in MOVES.items():
    if os.path.exists(old):
        subprocess.run(['git', 'mv', old, new], check=True)
        moved_from[new] = old
for path in files():
    rewrite(path, moved_from.get(path, path))
