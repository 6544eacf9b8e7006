# What selection ships inside the library (docs/design.md): the floor (src/select/floor.hpp) and the H200 database
# (src/select/shipped.hpp). Each JSON file under data/ becomes a string in a generated source, so an installed
# program needs no data file. Editing a JSON file re-runs the configure step.
function(tw_embed_json json_file symbol generated_cpp)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${json_file})
  file(READ ${json_file} TW_JSON)
  if(TW_JSON MATCHES "\\)tilewise_data\"")
    message(FATAL_ERROR "${json_file} holds the raw string's closing delimiter")
  endif()
  file(RELATIVE_PATH TW_JSON_NAME ${PROJECT_SOURCE_DIR} ${json_file})
  file(CONFIGURE OUTPUT ${generated_cpp}
       CONTENT "// Generated from @TW_JSON_NAME@ by cmake/shipped_data.cmake: do not edit.\nnamespace tilewise::select {\nextern const char* const @symbol@;\nconst char* const @symbol@ = R\"tilewise_data(@TW_JSON@)tilewise_data\";\n}  // namespace tilewise::select\n"
       @ONLY)
endfunction()

tw_embed_json(${PROJECT_SOURCE_DIR}/data/floor-h200.json shipped_floor_json ${PROJECT_BINARY_DIR}/generated/floor_data.cpp)
tw_embed_json(${PROJECT_SOURCE_DIR}/data/database-h200.json shipped_database_json
              ${PROJECT_BINARY_DIR}/generated/database_data.cpp)
