"""Drop-in stand-ins for other evaluation libraries' APIs (:mod:`evalkit.compat.pytrec_eval`)."""
