"""The seed of the `import --from octodns` tests, from octoDNS's own reader: its YamlProvider
loads each zone of the configuration named on the command line and this prints, one line per
value, `name<TAB>ttl<TAB>type<TAB>rdata`, the rdata in octoDNS's own presentation form. What the
zone's targets would receive: records excluded from every target and dynamic records (which a
target answers from pools the API can't hold) are left out; ignored records stay (octoDNS leaves
them live as they are). Run by tests/it/import/octodns_differential.rs."""

import logging
import sys
import warnings

from octodns.provider.yaml import YamlProvider
from octodns.yaml import safe_load
from octodns.zone import Zone

YAML_OPTIONS = (
    'directory',
    'default_ttl',
    'enforce_order',
    'split_extension',
    'escaped_semicolons',
)


def reaches(record, targets):
    if not targets:
        return True
    excluded = record.excluded or []
    included = record.included or []
    return any(
        t not in excluded and (not included or t in included) for t in targets
    )


def main(config_file):
    logging.disable(logging.WARNING)
    warnings.simplefilter('ignore')
    with open(config_file) as fh:
        config = safe_load(fh, enforce_order=False)
    providers = config['providers']
    for zone_name, zone_config in config['zones'].items():
        zone = Zone(zone_name, [])
        for source in zone_config['sources']:
            options = {
                k: v for k, v in providers[source].items() if k in YAML_OPTIONS
            }
            YamlProvider(source, **options).populate(zone, lenient=False)
        targets = zone_config.get('targets', [])
        for record in sorted(zone.records, key=lambda r: (r.name, r._type)):
            if getattr(record, 'dynamic', None) or not reaches(record, targets):
                continue
            name = record.name or '@'
            if record._type in ('TXT', 'SPF'):
                # What octoDNS sends a provider that takes raw text, as the API does.
                rdatas = [value.to_raw_text() for value in record.values]
            else:
                rdatas = record.rrs[3]
            for rdata in rdatas:
                print(f'{name}\t{record.ttl}\t{record._type}\t{rdata}')


if __name__ == '__main__':
    main(sys.argv[1])
