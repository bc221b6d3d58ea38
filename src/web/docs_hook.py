"""MkDocs hook (mkdocs.yml): the manual's site gets the browser build beside it, in sandbox/, so
that the page docs/web.md opens the sandbox itself. The page comes from build-web/ (make web), or
the folder FS_WEB_DIR names; without one, sandbox/index.html says how to build it. It also gets
KaTeX, in katex/, from Debian's libjs-katex, to typeset the formulas (docs/js/math.js); without
the package they stay as TeX source."""
import glob
import os
import shutil

KATEX = '/usr/share/javascript/katex'


def copy_katex(site_dir):
    if not os.path.isfile(os.path.join(KATEX, 'katex.min.js')):
        return
    out = os.path.join(site_dir, 'katex')
    os.makedirs(os.path.join(out, 'contrib'), exist_ok=True)
    os.makedirs(os.path.join(out, 'fonts'), exist_ok=True)
    for name in ('katex.min.js', 'katex.min.css', os.path.join('contrib', 'auto-render.js')):
        shutil.copyfile(os.path.join(KATEX, name), os.path.join(out, name))  # follows Debian's links
    for font in glob.glob(os.path.join(KATEX, 'fonts', '*')):
        shutil.copyfile(font, os.path.join(out, 'fonts', os.path.basename(font)))

PAGE = ('index.html', 'index.js', 'index.wasm', 'index.data')
# The threaded program and its service worker (make web builds them; index.html falls back to
# the single-threaded program without them).
THREADED = ('index-threads.js', 'index-threads.wasm', 'index-threads.data', 'index-threads.worker.js', 'coi-sw.js')


def on_post_build(config, **kwargs):
    copy_katex(config['site_dir'])
    root = os.path.dirname(os.path.abspath(config['config_file_path']))
    web = os.environ.get('FS_WEB_DIR') or os.path.join(root, 'build-web')
    out = os.path.join(config['site_dir'], 'sandbox')
    os.makedirs(out, exist_ok=True)
    if all(os.path.isfile(os.path.join(web, f)) for f in PAGE):
        for f in PAGE + tuple(f for f in THREADED if os.path.isfile(os.path.join(web, f))):
            shutil.copy2(os.path.join(web, f), os.path.join(out, f))
        return
    with open(os.path.join(out, 'index.html'), 'w') as f:
        f.write('<!doctype html><meta charset="utf-8"><title>fluid-sandbox</title>'
                '<p>This copy of the manual was built without the browser build: run <code>make web</code>, '
                'then build the manual again (<code>mkdocs build</code>).</p>\n')
