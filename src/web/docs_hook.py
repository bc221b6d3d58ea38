"""MkDocs hook (mkdocs.yml): the manual's site gets the browser build beside it, in sandbox/, so
that the page docs/web.md opens the sandbox itself. The page comes from build-web/ (make web), or
the folder FS_WEB_DIR names; without one, sandbox/index.html says how to build it."""
import os
import shutil

PAGE = ('index.html', 'index.js', 'index.wasm', 'index.data')


def on_post_build(config, **kwargs):
    root = os.path.dirname(os.path.abspath(config['config_file_path']))
    web = os.environ.get('FS_WEB_DIR') or os.path.join(root, 'build-web')
    out = os.path.join(config['site_dir'], 'sandbox')
    os.makedirs(out, exist_ok=True)
    if all(os.path.isfile(os.path.join(web, f)) for f in PAGE):
        for f in PAGE:
            shutil.copy2(os.path.join(web, f), os.path.join(out, f))
        return
    with open(os.path.join(out, 'index.html'), 'w') as f:
        f.write('<!doctype html><meta charset="utf-8"><title>fluid-sandbox</title>'
                '<p>This copy of the manual was built without the browser build: run <code>make web</code>, '
                'then build the manual again (<code>mkdocs build</code>).</p>\n')
