"""HTA's hta.configs.config: the "hta" logger notebooks import, and
HtaConfig (a JSON configuration read from HTA's usual places)."""
import json
import logging
import os

logger = logging.getLogger("hta")


class HtaConfig:
    """Configuration values by dotted path, from the first existing file of
    the default paths (~/.config/hta/trace_analyzer.json, ./trace_analyzer.json)
    or the given one."""

    @staticmethod
    def get_default_paths():
        return [os.path.join(os.path.expanduser("~"), ".config", "hta", "trace_analyzer.json"),
                os.path.join(os.getcwd(), "trace_analyzer.json")]

    def __init__(self, config_file_path="", load_default_paths=False):
        self.config_file_path = config_file_path
        self.config = {}
        paths = ([config_file_path] if config_file_path else []) + (self.get_default_paths() if load_default_paths
                                                                     or not config_file_path else [])
        for path in paths:
            if os.path.exists(path):
                with open(path) as f:
                    self.config = json.load(f)
                break

    def get_config_file_paths(self):
        return ([self.config_file_path] if self.config_file_path else []) + self.get_default_paths()

    def get_config(self, dot_path=None, default_value=None):
        if dot_path is None:
            return self.config
        value = self.config
        for key in dot_path.split("."):
            if not isinstance(value, dict) or key not in value:
                return default_value
            value = value[key]
        return value

    def show(self):
        print(json.dumps(self.config, indent=4, sort_keys=True))

    @staticmethod
    def get_test_data_path(dataset):
        """HTA's test data directory for a dataset: $HTA_TEST_DATA (HTA's tests/data) / dataset."""
        return os.path.join(os.environ.get("HTA_TEST_DATA", os.path.join(os.getcwd(), "tests", "data")), dataset)
