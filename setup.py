"Packaging for posenc: every setting and dependency is read from settings.ini (nbdev 2)."
from configparser import ConfigParser
from pathlib import Path
import setuptools

cfg = ConfigParser(delimiters=['='])
cfg.read(Path(__file__).parent/'settings.ini', encoding='utf-8')
cfg = cfg['DEFAULT']
for key in 'version description keywords author author_email license min_python lib_name'.split():
    assert key in cfg, f'settings.ini is missing the key {key!r}'

py_versions = '3.10 3.11 3.12 3.13'.split()
min_python = cfg['min_python']
requirements = cfg.get('requirements', '').split()
dev_requirements = cfg.get('dev_requirements', '').split()
bench_requirements = cfg.get('bench_requirements', '').split()
cluster_requirements = cfg.get('cluster_requirements', '').split()
readme = Path(__file__).parent/'README.md'

setuptools.setup(
    name=cfg['lib_name'],
    version=cfg['version'],
    description=cfg['description'],
    long_description=readme.read_text(encoding='utf-8') if readme.exists() else cfg['description'],
    long_description_content_type='text/markdown',
    keywords=cfg['keywords'],
    author=cfg['author'], author_email=cfg['author_email'],
    license='Apache Software License 2.0',
    url=cfg['git_url'],
    packages=setuptools.find_packages(include=[cfg['lib_path'], cfg['lib_path'] + '.*']),
    include_package_data=True,
    install_requires=requirements,
    extras_require={'dev': dev_requirements, 'bench': bench_requirements, 'cluster': cluster_requirements},
    python_requires='>=' + min_python,
    classifiers=['Programming Language :: Python :: ' + v for v in py_versions[py_versions.index(min_python):]],
    entry_points={
        'console_scripts': cfg.get('console_scripts', '').split(),
        'nbdev': [f'{cfg["lib_path"]}={cfg["lib_path"]}._modidx:d'],
    },
    zip_safe=False,
)
