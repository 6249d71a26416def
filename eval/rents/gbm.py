"""Gradient-boosting reference of the real-rent evaluation (eval/rents/gbm-reference.ts runs it).

Reads train.csv and test.csv (id, latitude, longitude, property_type, bedrooms, bathrooms,
area_sqm[, rent]) from the folder given as the only argument, fits scikit-learn's
HistGradientBoostingRegressor on log rent with place, type, bedrooms, bathrooms and floor area
(missing values as NaN, which the model handles natively), and writes predictions.csv (id, rent).
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

FEATURES = ["latitude", "longitude", "type_code", "bedrooms", "bathrooms", "area_sqm"]


def features(frame: pd.DataFrame, types: list) -> pd.DataFrame:
    out = frame.copy()
    out["type_code"] = out["property_type"].map({t: i for i, t in enumerate(types)}).astype(float)
    return out[FEATURES].astype(float)


def main(folder: Path) -> None:
    train = pd.read_csv(folder / "train.csv")
    test = pd.read_csv(folder / "test.csv")
    types = sorted(set(train["property_type"]) | set(test["property_type"]))
    model = HistGradientBoostingRegressor(
        max_iter=500,
        learning_rate=0.05,
        early_stopping=True,
        random_state=0,
        categorical_features=[FEATURES.index("type_code")],
    )
    model.fit(features(train, types), np.log(train["rent"]))
    predictions = np.exp(model.predict(features(test, types)))
    pd.DataFrame({"id": test["id"], "rent": predictions}).to_csv(folder / "predictions.csv", index=False)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
