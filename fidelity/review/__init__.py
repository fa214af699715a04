"""Human review round trip: export tasks for annotators, import their labels, agree, adjudicate.

`tasks` builds one review task per kept candidate; `formats/` writes and reads
Label Studio, Argilla, Excel and JSON Lines files; `agreement` scores the two
annotators; `resolve` merges them with the adjudicator's decisions; `dataset`
writes the final dataset; `calibration` compares the model grader with humans.
"""
